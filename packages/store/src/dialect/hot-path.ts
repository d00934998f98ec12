import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/**
 * Statements that return rows (selects, and inserts with RETURNING) run synchronously on the one
 * connection a transaction holds, without a promise or a query builder per statement, their rows
 * as arrays: the embedded engine's hot path. Only for a transaction that {@link holds} says is
 * this store's and still open (a statement run any other time would land in whatever
 * transaction holds the connection then); callers otherwise take the ordinary Kysely path.
 * Statement texts come from Kysely (`compile()`) or the dialect's batches (VALUES lists), so
 * they are the dialect's own. Writes stay multi-row statements: measured, one prepared statement
 * per row was no faster for updates and slower for inserts (18 values bound a call).
 */
export interface HotPath {
  /** Marks `trx` as the open transaction of this store that holds the connection (the store calls it). */
  hold(trx: Kysely<VerqDatabase>): void;
  /** Ends {@link hold}: `trx` is committing or rolling back. */
  release(trx: Kysely<VerqDatabase>): void;
  /** True while `trx` is held: only then may {@link readRows} run for it. */
  holds(trx: Kysely<VerqDatabase>): boolean;
  /** The rows of one query, each as its column values in the statement's column order. */
  readRows(text: string, parameters: readonly unknown[]): unknown[][];
}
