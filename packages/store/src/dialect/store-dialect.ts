import type { VerqError } from "@verq/core";
import type { ColumnDefinitionBuilder, Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/**
 * Statements that return rows (selects, and inserts with RETURNING) run synchronously on the one
 * connection a transaction holds, without a promise or a query builder per statement, their rows
 * as arrays: the embedded engine's hot path. Only for a
 * transaction that
 * {@link holds} says is this store's and still open (a statement run any other time would land
 * in whatever transaction holds the connection then); callers otherwise take the ordinary
 * Kysely path. Statement texts come from Kysely (`compile()`) or the dialect's batch VALUES, so
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

/**
 * The positions of the event log handed out when it was taken ({@link StoreDialect.markPositions}),
 * and what must end before no transaction can still commit an event at or below `position`.
 */
export interface PositionMark {
  /** The highest position handed out so far (committed or not). */
  readonly position: number;
  /** The engine's token for "every writer in flight then": null when none was. */
  readonly fence: string | null;
}

/** The SQL type of a column of a batch row (see {@link StoreDialect.batchValues}). */
export type BatchColumnType = "text" | "integer" | "bigint" | "numeric";

/**
 * The store's seam between portable SQL and what differs per database, as capabilities: shared
 * SQL never asks which engine it runs on. SQLite and PostgreSQL each implement it; services
 * never see engine-specific SQL.
 */
export interface StoreDialect {
  /** Which engine this is, for messages and diagnostics only; no SQL is chosen by it. */
  readonly name: "sqlite" | "postgres";
  /**
   * SQLite's synchronous statements on the transaction's connection ({@link HotPath}); absent on
   * PostgreSQL, where every statement is a round trip and a batch is one multi-row statement.
   */
  readonly hotPath?: HotPath;
  /** The column type of the event log's global position (`integer` on SQLite, `bigserial` on PostgreSQL). */
  readonly positionColumnType: string;
  /**
   * Makes the position column the table's key, assigned by the database on insert (migration
   * 001; SQLite's `AUTOINCREMENT` there is replaced by {@link leanPositions}); a PostgreSQL
   * sequence never goes back.
   */
  positionKey(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /** Installs the triggers that make UPDATE of an event, and DELETE of a job's event, fail. */
  createAppendOnlyGuards(db: Kysely<VerqDatabase>): Promise<void>;
  /**
   * Migration 005: positions that cost nothing beyond the row. SQLite rebuilds `events` with a
   * plain rowid key instead of `AUTOINCREMENT` (whose counter row every append rewrote) and adds
   * a trigger that refuses to delete the newest event, so `max(position) + 1` never hands out a
   * position that was seen before. Nothing on PostgreSQL, whose sequence never goes back.
   */
  leanPositions(db: Kysely<VerqDatabase>): Promise<void>;
  /**
   * Migration 009: the job events of a job in `job_archive` may be deleted (retention); the
   * events of any other job still may not. The prune inserts the archive row before it deletes,
   * in the same transaction, and never the newest event of the log.
   */
  allowArchivedJobDeletes(db: Kysely<VerqDatabase>): Promise<void>;
  /**
   * Migration 010: what {@link markPositions} and {@link positionsSettled} need, and the
   * announcement of new events to live subscribers. PostgreSQL hands out a position only to a
   * transaction that has its id already (so a snapshot tells whether it may still commit), and
   * sends `NOTIFY` on the store's events channel after each insert into `events`. Nothing on
   * SQLite.
   */
  trackPositions(db: Kysely<VerqDatabase>): Promise<void>;
  /**
   * Marks the positions handed out so far. On SQLite, whose one writer commits before the next
   * takes a position, every committed event is settled: the mark is the whole log and has no
   * fence. On PostgreSQL, where a transaction that commits later may hold a smaller position than
   * one already visible, the mark is the sequence's last value and the transactions in flight.
   */
  markPositions(db: Kysely<VerqDatabase>): Promise<PositionMark>;
  /**
   * True once no transaction can commit an event at or below `mark.position` any more: every
   * one in flight at the mark has ended (PostgreSQL: the oldest transaction still running is
   * younger than the mark's fence). A reader that stops at a settled mark never skips an event
   * that commits later.
   */
  positionsSettled(db: Kysely<VerqDatabase>, mark: PositionMark): Promise<boolean>;
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
   * The `(…), (…)` of a multi-row VALUES list of `rows` rows with these column types, with
   * placeholders only (the values are bound, never spliced in): `(?, ?)` on SQLite, typed
   * `($1::text, $2::bigint)` on PostgreSQL, where an untyped VALUES column would be text.
   * Placeholders are numbered from 1 in row order.
   */
  batchValues(rows: number, types: readonly BatchColumnType[]): string;
  /** Bound parameters one statement may carry. */
  readonly maxParameters: number;
  /** True when `error` is a violation of a UNIQUE or PRIMARY KEY constraint. */
  isUniqueViolation(error: unknown): boolean;
  /**
   * True when `error` means "run the transaction again from the start": the database is busy or
   * locked (SQLite), or a serialization failure, a deadlock, or a version conflict with a
   * transaction that committed meanwhile (PostgreSQL, where several writers run at once).
   */
  isBusy(error: unknown): boolean;
  /**
   * The verq error a database error stands for, which every statement of the store throws in
   * its place: no room left (SQLite's `SQLITE_FULL`, PostgreSQL's SQLSTATE 53100 `disk_full`) is
   * `VERQ_STORE_FULL`; a damaged SQLite file (`SQLITE_CORRUPT`, `SQLITE_NOTADB`) is
   * `VERQ_STORE_CORRUPT`. Undefined for every other error, which passes through as it is (so
   * that {@link isBusy} and {@link isUniqueViolation} still see the engine's codes).
   */
  storeError(error: unknown): VerqError | undefined;
  /**
   * Runs one statement that may fail (an insert a unique constraint can refuse) so that the
   * transaction can go on after its failure: SQLite undoes only the failed statement; on
   * PostgreSQL a failed statement aborts the transaction, so it runs inside a savepoint.
   */
  isolated<T>(trx: Kysely<VerqDatabase>, work: () => Promise<T>): Promise<T>;
  /**
   * Runs the first open's schema work (`work`, with the database to run it on) so that processes
   * opening one fresh database at once take turns: SQLite's migration transaction already takes
   * the write lock; PostgreSQL takes a session advisory lock around it.
   */
  withMigrationLock<T>(db: Kysely<VerqDatabase>, work: (db: Kysely<VerqDatabase>) => Promise<T>): Promise<T>;
  /**
   * The schema that holds the store's migration bookkeeping, read on `db` before migrating:
   * undefined on SQLite (one file, one schema); PostgreSQL's current schema, since other schemas
   * of the same database may hold other verq stores, and their bookkeeping must not be taken
   * for this one's.
   */
  migrationSchema(db: Kysely<VerqDatabase>): Promise<string | undefined>;
  /**
   * Makes the rest of `trx` exclusive among the transactions that name the same `topic`, until it
   * ends: for a rule that counts rows no single row stands for (the redrive rate limit). SQLite
   * already holds the single write lock; PostgreSQL takes a transaction advisory lock.
   */
  exclusive(trx: Kysely<VerqDatabase>, topic: string): Promise<void>;
  /**
   * Replaces the CHECK constraint of one column, declared inline as `check (from)`, by
   * `check (to)`, keeping every row, column, index and trigger of the table (a migration widening
   * a set of allowed values). PostgreSQL drops and adds the constraint by its name
   * (`<table>_<column>_check`); SQLite, which cannot alter a constraint, rebuilds the table from
   * its own schema text with only that condition replaced, in the migration's transaction.
   */
  replaceColumnCheck(db: Kysely<VerqDatabase>, change: ColumnCheckChange): Promise<void>;
  /** Maintenance before the database's files are measured or copied: SQLite moves its WAL into the file; PostgreSQL has nothing to do. */
  checkpoint(db: Kysely<VerqDatabase>): Promise<void>;
}

/** One inline column CHECK to replace (see {@link StoreDialect.replaceColumnCheck}). */
export interface ColumnCheckChange {
  readonly table: string;
  readonly column: string;
  /** The condition as migration 001 wrote it, e.g. `reason in ('permanent', 'exhausted', 'deadline')`. */
  readonly from: string;
  readonly to: string;
}
