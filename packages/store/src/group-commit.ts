/** One submitted item and the promise its submitter awaits. */
interface Waiter<I, R> {
  readonly item: I;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

/** Settings of a {@link GroupCommit}. */
export interface GroupCommitOptions<I> {
  /** Most items in one batch: 256 by default. */
  readonly maxBatch?: number;
  /**
   * Items with one key never share a batch: the later waits for the next one. For claims, so that
   * a second claim of one GUID meets the first one's committed row and the database, not the
   * order inside a statement, decides who owns it.
   */
  readonly keyOf?: (item: I) => string;
}

/**
 * Group commit: items submitted while a batch is running wait, and all of them go into the next
 * batch, so concurrent callers share one transaction instead of queueing for the write lock one
 * by one. An item that finds nothing running starts a batch at once if no batch started in this
 * turn of the event loop (one caller at a time pays nothing for the grouping); otherwise its batch
 * starts in this turn's check phase (`setImmediate`, no timer), with every item submitted until
 * then: the requests that were ready together. `run` gets the items in submission order and
 * returns one result per item, each decided as if the item were alone.
 *
 * A batch that throws wrote nothing (it is one transaction), and one bad item must not fail the
 * others: each of its items then runs again alone and gets its own result or its own error.
 * `run` must therefore be safe to repeat for an item, as every store transaction is.
 */
export class GroupCommit<I, R> {
  readonly #run: (items: readonly I[]) => Promise<readonly R[]>;
  readonly #maxBatch: number;
  readonly #keyOf: ((item: I) => string) | undefined;
  #waiting: Waiter<I, R>[] = [];
  #running = false;
  /** A batch started in this turn of the event loop: a later submission in it waits for the check phase. */
  #startedThisTurn = false;

  constructor(run: (items: readonly I[]) => Promise<readonly R[]>, options: GroupCommitOptions<I> = {}) {
    this.#run = run;
    this.#maxBatch = Math.max(1, options.maxBatch ?? 256);
    this.#keyOf = options.keyOf;
  }

  /** Runs `item` in the next batch and resolves with its own result (or rejects with its own error). */
  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      if (this.#running) return;
      this.#running = true;
      // Alone in this turn of the event loop: start now. Otherwise wait for the turn's check
      // phase, by which time every request that was ready together has been handed over: with a
      // synchronous driver (SQLite) a transaction never yields to the event loop, so nothing
      // could arrive while one runs.
      if (this.#startedThisTurn) setImmediate(() => void this.#drain());
      else void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#waiting.length > 0) {
        if (!this.#startedThisTurn) {
          this.#startedThisTurn = true;
          setImmediate(() => (this.#startedThisTurn = false));
        }
        await this.#settle(this.#take());
      }
    } finally {
      this.#running = false;
    }
  }

  /** The next batch: waiters in order, at most `maxBatch`, at most one per key. */
  #take(): Waiter<I, R>[] {
    const keyOf = this.#keyOf;
    if (keyOf === undefined) return this.#waiting.splice(0, this.#maxBatch);
    const batch: Waiter<I, R>[] = [];
    const later: Waiter<I, R>[] = [];
    const keys = new Set<string>();
    for (const waiter of this.#waiting) {
      const key = keyOf(waiter.item);
      if (batch.length >= this.#maxBatch || keys.has(key)) later.push(waiter);
      else {
        keys.add(key);
        batch.push(waiter);
      }
    }
    this.#waiting = later;
    return batch;
  }

  async #settle(batch: readonly Waiter<I, R>[]): Promise<void> {
    let results: readonly R[];
    try {
      results = await this.#run(batch.map((w) => w.item));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      // Nothing of the batch was written: each item on its own, with its own outcome.
      for (const waiter of batch) await this.#settle([waiter]);
      return;
    }
    if (results.length !== batch.length) {
      const error = new Error(`a batch of ${batch.length} items returned ${results.length} results`);
      for (const waiter of batch) waiter.reject(error);
      return;
    }
    batch.forEach((waiter, i) => waiter.resolve(results[i] as R));
  }
}
