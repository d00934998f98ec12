import { checkIdentifier, systemClock, type Clock } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "./schema.ts";
import type { VerqStore } from "./store.ts";
import { bumpCounter, readCounter } from "./sql/counters.ts";
import { insertReceipt } from "./sql/receipts/insertReceipt.ts";
import { selectReceipt } from "./sql/receipts/selectReceipt.ts";
import { updateReceiptResponse } from "./sql/receipts/updateReceiptResponse.ts";

// Never visible outside the transaction that inserts it: the effect's answer replaces it before commit.
const PENDING_RESPONSE = "";

/** What {@link ReceiptBook.once} did for one request. */
export interface ReceiptResult {
  /** True when this request applied the effect; false for a repeat that got the first answer. */
  readonly applied: boolean;
  /** The first answer for this key, byte for byte. */
  readonly response: string;
}

/** Request and effect counts of a receiver. */
export interface ReceiverCounts {
  /** Requests that reached {@link ReceiptBook.once} and committed (repeats included). */
  readonly requests: number;
  /** Effects applied: one per idempotency key. */
  readonly effects: number;
}

/**
 * The receiving side of effectively-once delivery: commits an idempotency key together with
 * its business effect in one transaction, and answers a repeated key with the first answer
 * and no second effect. The effect's own tables are the service's: the store's migrations
 * create only `receipts`. `receiverPlugin` in `@verq/adapters` puts it behind HTTP.
 *
 * @example
 * const book = new ReceiptBook(store);
 * const { applied, response } = await book.once(key, async (trx) => {
 *   await trx.withTables<Charges>().insertInto("charges").values(charge).execute(); // at most once per key
 *   return JSON.stringify({ ok: true });
 * });
 */
export class ReceiptBook {
  readonly #store: VerqStore;
  readonly #clock: Clock;

  constructor(store: VerqStore, options: { clock?: Clock } = {}) {
    this.#store = store;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Runs `effect` and records `key` with its answer in one transaction, unless `key` is already
   * recorded: then returns the stored answer and runs nothing. If `effect` throws, nothing is
   * recorded and a later request with the same key may try again.
   */
  async once(key: string, effect: (trx: Kysely<VerqDatabase>) => Promise<string>): Promise<ReceiptResult> {
    checkIdentifier(key, "an idempotency key", "VERQ_INVALID_ARGUMENT");
    const now = this.#clock.now();
    return this.#store.transaction(async (trx) => {
      await bumpCounter(trx, "receiver.requests");
      // Insert-or-nothing first: the key's PRIMARY KEY decides who applies the effect.
      if (!(await insertReceipt(trx, key, PENDING_RESPONSE, now))) {
        return { applied: false, response: (await selectReceipt(trx, key)) ?? PENDING_RESPONSE };
      }
      const response = await effect(trx);
      await updateReceiptResponse(trx, key, response);
      await bumpCounter(trx, "receiver.effects");
      return { applied: true, response };
    });
  }

  /** Requests recorded and effects applied so far; an effect that threw counts in neither. */
  async counts(): Promise<ReceiverCounts> {
    const db = this.#store.db;
    return {
      requests: await readCounter(db, "receiver.requests"),
      effects: await readCounter(db, "receiver.effects"),
    };
  }
}
