/**
 * Sleeps that end early when rung: a worker's loops wait on one for a send to settle, a round to
 * commit, a job to be enqueued or a stop, or for their poll interval to pass. A ring wakes every
 * sleeper at once; a ring with nobody asleep is lost (a loop checks its work before it sleeps).
 */
export class Alarm {
  readonly #sleepers = new Set<() => void>();

  /** Resolves after `ms`, or at the next {@link ring}; only at a ring when `ms` is null. */
  sleep(ms: number | null): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        if (timer !== undefined) clearTimeout(timer);
        this.#sleepers.delete(wake);
        resolve();
      };
      const timer = ms === null ? undefined : setTimeout(wake, ms);
      this.#sleepers.add(wake);
    });
  }

  /** Wakes every sleeper. */
  ring(): void {
    for (const wake of [...this.#sleepers]) wake();
  }
}
