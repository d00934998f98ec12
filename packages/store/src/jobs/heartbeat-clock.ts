/** A held job's heartbeat: whether one is being written. */
export interface Beating {
  beating: boolean;
}

interface Entry extends Beating {
  readonly everyMs: number;
  /** When the next heartbeat is due (`performance.now()` time). */
  due: number;
  readonly beat: () => void;
}

/**
 * The heartbeats of every job a worker holds, on one timer: each job's `beat` runs every
 * `everyMs` from when it is held until it is released, as an interval per job would, and the
 * timer is armed for the earliest beat due. A worker holding hundreds of jobs arms one timer,
 * not one per job.
 */
export class HeartbeatClock {
  readonly #entries = new Map<string, Entry>();
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;

  /** Starts `key`'s heartbeats: `beat` runs every `everyMs` (at least 1) until {@link release}. */
  hold(key: string, everyMs: number, beat: () => void): void {
    const every = Math.max(1, everyMs);
    const entry: Entry = { everyMs: every, due: performance.now() + every, beat, beating: false };
    this.#entries.set(key, entry);
    this.#arm(entry.due);
  }

  /** The heartbeat state of a held key, `undefined` once released. */
  get(key: string): Beating | undefined {
    return this.#entries.get(key);
  }

  /** The keys held now. */
  keys(): string[] {
    return [...this.#entries.keys()];
  }

  /** Ends `key`'s heartbeats (a beat under way still finishes). */
  release(key: string): void {
    this.#entries.delete(key);
    if (this.#entries.size === 0 && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#timerAt = Number.POSITIVE_INFINITY;
    }
  }

  #arm(at: number): void {
    if (at >= this.#timerAt) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#fire(), Math.max(1, Math.ceil(at - performance.now())));
    this.#timer.unref();
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (const entry of this.#entries.values()) {
      // A timer may fire up to a millisecond early: a beat due by then is run now.
      if (entry.due <= now + 1) {
        entry.due = now + entry.everyMs;
        entry.beat();
      }
      if (entry.due < next) next = entry.due;
    }
    // A beat may have released entries (never synchronously today): arm for those still held.
    if (this.#entries.size > 0) this.#arm(next);
  }
}
