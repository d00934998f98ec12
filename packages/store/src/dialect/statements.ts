import type { Kysely, RawBuilder } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import type { HotPath } from "./hot-path.ts";

/** The SQL type of a column of a batch row (see {@link Statements.batchValues}). */
export type BatchColumnType = "text" | "integer" | "bigint" | "numeric";

/**
 * How an engine runs the store's statements and transactions: the text of a batch, how many
 * values one statement may bind, the statement that may fail without ending its transaction,
 * the section only one transaction at a time may run, and how a claim locks its candidates.
 */
export interface Statements {
  /**
   * The `(…), (…)` of a multi-row VALUES list of `rows` rows with these column types, with
   * placeholders only (the values are bound, never spliced in): `(?, ?)` on SQLite, typed
   * `($1::text, $2::bigint)` on PostgreSQL, where an untyped VALUES column would be text.
   * Placeholders are numbered from 1 in row order.
   */
  batchValues(rows: number, types: readonly BatchColumnType[]): string;
  /** Bound parameters one statement may carry. */
  readonly maxParameters: number;
  /**
   * SQLite's synchronous statements on the transaction's connection ({@link HotPath}); absent on
   * PostgreSQL, where every statement is a round trip and a batch is one multi-row statement.
   */
  readonly hotPath?: HotPath;
  /**
   * Runs one statement that may fail (an insert a unique constraint can refuse) so that the
   * transaction can go on after its failure: SQLite undoes only the failed statement; on
   * PostgreSQL a failed statement aborts the transaction, so it runs inside a savepoint.
   */
  isolated<T>(trx: Kysely<VerqDatabase>, work: () => Promise<T>): Promise<T>;
  /**
   * Makes the rest of `trx` exclusive among the transactions that name the same `topic`, until it
   * ends: for a rule that counts rows no single row stands for (the redrive rate limit). SQLite
   * already holds the single write lock; PostgreSQL takes a transaction advisory lock.
   */
  exclusive(trx: Kysely<VerqDatabase>, topic: string): Promise<void>;
  /**
   * Suffix for the claim's candidate SELECT: `for update skip locked` on PostgreSQL, so that
   * claimers pass over each other's candidates instead of queueing behind them; empty on
   * SQLite, where `BEGIN IMMEDIATE` already holds the single write lock.
   */
  readonly claimLockSuffix: string;
  /**
   * Runs before a claim's candidate SELECTs, in the claim's transaction: makes the planner walk
   * the partial due index in order and stop at the LIMIT. PostgreSQL's statistics of a queue
   * table lag behind bursts (thousands of jobs enqueued since the last ANALYZE look like a
   * handful), and it then sorts every due job to hand out the first hundred, 20 ms instead of
   * 0.2 ms; `set local enable_sort = off` (to the end of the transaction) rules that plan out.
   * Nothing on SQLite.
   */
  beforeClaim(trx: Kysely<VerqDatabase>): Promise<void>;
  /**
   * The string member `key` of the JSON object a text column holds, as an expression (null when
   * the column or the member is null): `json_extract(column, '$.key')` on SQLite,
   * `(column::json ->> 'key')` on PostgreSQL, whose `->>` takes no text. `column` and `key` are
   * the store's own names, written into the SQL as they are (never a caller's value): the same
   * text in a select list and a `group by` is the same expression.
   */
  jsonText(column: string, key: string): RawBuilder<string | null>;
}
