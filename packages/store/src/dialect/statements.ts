import type { CompiledQuery, Kysely, RawBuilder } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import type { HotPath } from "./hot-path.ts";

/** The SQL type of a column of a batch row (see {@link Statements.batch}). */
export type BatchColumnType = "text" | "integer" | "bigint" | "numeric";

/** A bound value of a batch row. */
export type BatchValue = string | number | null;

/**
 * The rows of one statement of a batch (see {@link Statements.batch}), in the parts a statement
 * is written with; a statement uses those it needs. Every part binds the values (never splices
 * them in), and their columns keep their SQL types.
 */
export interface BatchText {
  /** The rows as the source of an INSERT, in row order: `values (?, ?), (?, ?)` on SQLite; `select * from unnest($1::text[], $2::bigint[])` on PostgreSQL. */
  readonly rows: string;
  /** The rows as a FROM item named `alias`, whose columns are `column1`, `column2`, …: `(values …) as v` on SQLite; `unnest(…) as v(column1, column2)` on PostgreSQL. */
  table(alias: string): string;
  /**
   * A condition: `expression` (a key of the table read) is one of the values of a batch of one
   * column: `expression in (values (?), (?))` on SQLite; on PostgreSQL `expression = any(…)` of
   * the array as a subquery, whose length the planner does not see, so that it reaches the rows
   * through the key's index whatever the table's statistics say (see postgres-batches.ts).
   */
  contains(expression: string): string;
  /**
   * A condition that joins the table a statement reads or writes to the batch: `expression` (a
   * key of that table) equals column `column` (from 1) of the batch's FROM item `alias`. On
   * PostgreSQL it also says that `expression` is one of that column's values, as
   * {@link contains} does, so that the table is read through the key's index: a join alone is
   * planned as a hash join over a scan of the whole table once the batch is large for the table.
   */
  matches(expression: string, alias: string, column: number): string;
}

/**
 * How an engine runs the store's statements and transactions: the statements of a batch, which
 * statements it may keep prepared, the statement that may fail without ending its transaction,
 * the section only one transaction at a time may run, and how a claim locks its candidates.
 */
export interface Statements {
  /**
   * The statements of a batch of `rows` whose columns have the SQL `types`, each written by
   * `statement` around the {@link BatchText} of its rows, in row order. SQLite: multi-row VALUES
   * lists of at most 500 rows (fewer where its 32,000 parameters a statement run out), one text
   * per row count, which its hot path keeps prepared by text. PostgreSQL: one array a column
   * (`unnest`, `= any`), at most 1,000 rows a statement and one text whatever their number,
   * {@link fixed}. Every row has one value per column.
   */
  batch(
    types: readonly BatchColumnType[],
    rows: readonly (readonly BatchValue[])[],
    statement: (text: BatchText) => string,
  ): Iterable<CompiledQuery>;
  /**
   * `query`, declared one of the hot path's fixed statements: its text is the same whatever its
   * values (no list of as many placeholders as values, no value written into the text). PostgreSQL
   * runs such a text as a named prepared statement, parsed and planned once per connection
   * (unless the store was opened with `preparedStatements: false`); SQLite takes it as it is,
   * since its hot path keeps every statement it runs prepared by text. Returns `query`.
   */
  fixed(query: CompiledQuery): CompiledQuery;
  /**
   * A condition: `expression` is one of the text `values`, written with one text whatever their
   * number where the engine can: `expression = any($1::text[])` on PostgreSQL;
   * `expression in (?, ?)` on SQLite, which has no arrays (and no text is false there: `in ()`).
   * `expression` is the store's own SQL, written as it is (never a caller's value).
   */
  isOneOf(expression: string, values: readonly string[]): RawBuilder<boolean>;
  /**
   * The LIMIT of a claim's candidate SELECT, for at least `n` rows (a caller drops any beyond
   * `n`): bound on PostgreSQL. SQLite (built with STAT4, as better-sqlite3 is) re-prepares a
   * statement on every execution whose LIMIT is a bound parameter, which cost about ten times the
   * query itself: there it is the next power of two, written into the text, so that the number
   * of distinct texts stays small.
   */
  claimLimit(n: number): RawBuilder<unknown>;
  /**
   * SQLite's synchronous statements on the transaction's connection ({@link HotPath}); absent on
   * PostgreSQL, where every statement is a round trip, and a batch one statement over arrays.
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
   * Whether two transactions of one store write at the same time: on PostgreSQL each runs on a
   * connection of its own, and a worker's rounds overlap (one is written while another commits);
   * SQLite has one writer, so a second round waits for the first (`JobWorker`'s `rounds` is 1 there).
   */
  readonly parallelWrites: boolean;
  /**
   * Whether one statement may append events and write their projection (a data-modifying
   * `with`): outside any transaction, atomic by itself, one round trip where a transaction of
   * its own costs a `BEGIN` and a `COMMIT` more; inside one, one round trip for two statements.
   * PostgreSQL: yes (a lone enqueue is written so, and the events and rows of jobs that move on).
   * SQLite has no data-modifying `with`, and its statements and transactions cost no round trip.
   */
  readonly standaloneWrites: boolean;
  /**
   * `select`, the query a claim runs first in its transaction (its queues' limits), written so
   * that it also sets what the claim's candidate SELECTs need of the planner, to the end of the
   * transaction, at no round trip of its own; its rows are `select`'s, in no particular order,
   * plus on PostgreSQL one row of nulls only (a caller drops it). PostgreSQL: the planner must
   * walk the partial due index in order and stop at the LIMIT. Its statistics of a queue table
   * lag behind bursts (thousands of jobs enqueued since the last ANALYZE look like a handful),
   * and it then sorts every due job to hand out the first hundred, 20 ms instead of 0.2 ms;
   * `enable_sort = off` rules that plan out, with `jit = off` (a plan that still sorts would
   * otherwise cost enough to be JIT-compiled). The settings are a one-row subquery that `select`
   * is left-joined to, so they are made whether or not `select` finds rows. SQLite: `select` as
   * it is.
   */
  withClaimSettings(select: string): string;
  /**
   * The string member `key` of the JSON object a text column holds, as an expression (null when
   * the column or the member is null): `json_extract(column, '$.key')` on SQLite,
   * `(column::json ->> 'key')` on PostgreSQL, whose `->>` takes no text. `column` and `key` are
   * the store's own names, written into the SQL as they are (never a caller's value): the same
   * text in a select list and a `group by` is the same expression.
   */
  jsonText(column: string, key: string): RawBuilder<string | null>;
  /**
   * The store's own `column` as an expression of its value that no index is searched by, for a
   * read that walks another index in its order and only filters by the column. SQLite:
   * `+column`; its planner, without statistics, takes an equality on the first column of an
   * index for a handful of rows, and would seek `jobs_counts` by queue and sort all of a queue's
   * jobs rather than walk the listing's index and stop at the page. PostgreSQL: the column, its
   * planner weighs the indexes by their statistics (and has no `+` for text).
   */
  notSought(column: string): RawBuilder<unknown>;
}
