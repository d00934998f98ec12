import { AsyncLocalStorage } from "node:async_hooks";
import { VerqError } from "@verq/core";

/** `VERQ_NESTED_TRANSACTION`: a call that needs the store's one connection, made where a transaction of the store holds it. */
export function nestedTransaction(): VerqError {
  return new VerqError(
    "VERQ_NESTED_TRANSACTION",
    "this call needs the SQLite store's one connection, which the store.transaction(work) it was made in holds until work ends, so it would wait for ever. Pass the transaction work receives, { trx } (e.g. queue.enqueue(input, { trx })), or make the call before or after the transaction; nothing of it was done.",
  );
}

/**
 * Which async flows are inside one of a store's own transactions, for an engine with one
 * connection (SQLite). `VerqStore.transaction` runs its `work` through {@link run}; the driver
 * calls {@link assertOutside} before it hands the connection out. A call of the same flow that
 * asks for the connection while `work` runs (a service call without `{ trx }`, a read through
 * `store.db`, another `store.transaction`) would wait for the connection that `work` itself
 * holds: it fails at once with `VERQ_NESTED_TRANSACTION` instead. Other flows, independent of
 * that transaction, wait for the connection as before. What a flow started inside `work` does
 * after `work` ended is outside again.
 */
export class TransactionScope {
  readonly #flows = new AsyncLocalStorage<{ inside: boolean }>();
  /** The transactions whose `work` runs now: the storage is enabled only while there is one. */
  #running = 0;

  /**
   * Runs `work` as the body of a transaction of the store: its flow, and every flow it starts, are
   * inside until it settles. The storage is disabled again once no `work` runs: on Node 20 an
   * enabled AsyncLocalStorage makes every promise of the process dearer (about 0.35 µs each,
   * measured), so the cost stays within the transactions' own work (about 9 µs a transaction,
   * measured on a transaction of one read) instead of taxing the whole service.
   */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const flow = { inside: true };
    this.#running++;
    try {
      return await this.#flows.run(flow, work);
    } finally {
      flow.inside = false;
      if (--this.#running === 0) this.#flows.disable();
    }
  }

  /** Throws `VERQ_NESTED_TRANSACTION` when the calling flow is inside a transaction of the store that has not ended. */
  assertOutside(): void {
    if (this.#flows.getStore()?.inside === true) throw nestedTransaction();
  }
}
