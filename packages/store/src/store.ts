import { isVerqError, VerqError } from "@verq/core";
import { watchCommit, type CommitWitness } from "./commit-witnesses.ts";
import { findWitnesses } from "./sql/events/findWitnesses.ts";
import { afterReconnecting, NotLanded } from "./reconnect.ts";
import { sql, type Kysely } from "kysely";
import { postgresStoreDialect } from "./dialect/postgres-dialect.ts";
import type { PostgresOptions } from "./dialect/postgres-options.ts";
import { describePostgresUrl, isPostgresUrl } from "./dialect/postgres-url.ts";
import type { WakeupTopic } from "./dialect/wakeups.ts";
import { sqliteStoreDialect } from "./dialect/sqlite-dialect.ts";
import { openSqlite } from "./dialect/sqlite-connection.ts";
import { sqliteHotPath } from "./dialect/sqlite-hot-path.ts";
import { DEFAULT_BUSY_TIMEOUT_MS, type SqliteOptions } from "./dialect/sqlite-options.ts";
import type { StoreDialect } from "./dialect/store-dialect.ts";
import { migrateToLatest, type MigrateOptions } from "./migrations/migrate.ts";
import type { VerqDatabase } from "./schema.ts";
import { retryWhenBusy, TRANSACTION_RETRY, type BusyRetry } from "./retry-when-busy.ts";
import { rebuildGuidLedger } from "./sql/ledger/rebuildGuidLedger.ts";
import { rebuildJobProjections } from "./sql/jobs/rebuildJobProjections.ts";
import { rebuildScheduleProjections } from "./sql/schedules/rebuildScheduleProjections.ts";
import { rebuildMessageProjections } from "./sql/files/rebuildMessageProjections.ts";

/** How {@link VerqStore.transaction} treats a COMMIT whose answer was lost. */
export interface TransactionOptions {
  /**
   * @internal True for verq's own transactions, whose every effect that matters is an event: a
   * cut COMMIT of one that appended none changed nothing that anyone reads (a counter at most),
   * and its result stands. Without it such a cut is `VERQ_STORE_CONNECTION_LOST`.
   */
  readonly witnessed?: boolean;
}

/** Migrations of a fresh file that another process is migrating wait for it: 20 tries, 10 ms steps. */
const MIGRATION_RETRY: BusyRetry = { attempts: 20, stepMs: 10, maxPauseMs: 200 };

/** Whether an open may make the store it opens (both engines). */
export interface StoreCreateOption {
  /**
   * `true` (the default): a store that is not there yet is made: the SQLite file, or verq's
   * tables (and the `schema`, when one is named) in the PostgreSQL database. `false`: only a store
   * that is there is opened, as the commands that only read open theirs: a SQLite file that does
   * not exist is `VERQ_FILE_NOT_FOUND`; a database, file or schema without verq's tables (no
   * migration of verq's ever ran there) is `VERQ_STORE_NOT_INITIALIZED`; either way nothing is
   * created or changed, and a typo in a path or URL never leaves an empty store behind. A store
   * an older verq made is still brought up to date.
   */
  readonly create?: boolean;
}

/** Where and how to open an embedded SQLite store. */
export interface SqliteStoreOptions extends SqliteOptions, StoreCreateOption {
  /** A file path (created if missing, unless `create: false`) or `:memory:`. */
  readonly path: string;
}

/** Where and how to open a PostgreSQL store. */
export interface PostgresStoreOptions extends PostgresOptions, StoreCreateOption {}

/** Where and how to open a store: a SQLite file (`path`) or a PostgreSQL database (`url`). */
export type OpenStoreOptions = SqliteStoreOptions | PostgresStoreOptions;

/**
 * The store owns persistence: one database, its dialect, the event log and the projections.
 * Services (the job queue, later the ledger) take a store and never open connections themselves.
 */
export class VerqStore {
  readonly db: Kysely<VerqDatabase>;
  readonly dialect: StoreDialect;
  /** Where the store is: the SQLite path, or `host:port/database` of a PostgreSQL store (never its password). */
  readonly path: string;
  /** @internal How {@link transaction} and the first open's migrations retry when busy: on SQLite, within the wait limit `busyTimeoutMs`. */
  readonly busyRetry: BusyRetry;
  /**
   * The migrations this open applied, oldest first: every one when it made the store, the new
   * ones when it brought an older store up to date, none when the store was up to date.
   */
  readonly appliedMigrations: readonly string[];
  /** @internal How long a call tries to get a lost connection back before `VERQ_STORE_UNREACHABLE` (PostgreSQL's `reconnectMs`). */
  readonly reconnectMs: number;
  #closed = false;
  /** What to run after each commit of {@link transaction}, by its transaction (see {@link announce}). */
  readonly #afterCommit = new WeakMap<Kysely<VerqDatabase>, (() => void)[]>();

  /** @internal use {@link openStore}. */
  constructor(
    db: Kysely<VerqDatabase>,
    dialect: StoreDialect,
    path: string,
    busyRetry: BusyRetry = TRANSACTION_RETRY,
    appliedMigrations: readonly string[] = [],
    reconnectMs = 0,
  ) {
    this.db = db;
    this.reconnectMs = reconnectMs;
    this.dialect = dialect;
    this.path = path;
    this.busyRetry = busyRetry;
    this.appliedMigrations = appliedMigrations;
  }

  /**
   * Runs `work` in one write transaction and retries it, from the start, when another process
   * holds the database (SQLITE_BUSY) — up to `attempts` times with a short growing pause, and on
   * SQLite within the wait limit (`busyTimeoutMs`, 5 s by default), then `VERQ_STORE_BUSY` with
   * nothing of `work` written. A full disk is `VERQ_STORE_FULL`, a damaged file
   * `VERQ_STORE_CORRUPT`, both with nothing of `work` written either. `work` must therefore do nothing outside the database that it cannot
   * repeat. A service runs its own writes here too, and passes `trx` to
   * {@link JobQueue.enqueue} to enqueue in the same transaction (SPEC P2); `trx.withTables<T>()`
   * types the service's own tables.
   *
   * Every store call made inside `work` takes `trx` (`{ trx }`), or waits until `work` ended. On
   * SQLite the transaction holds the store's one connection, so a call that needs it from inside
   * `work` (a service call without `{ trx }`, a read through `db`, another `transaction`) fails at
   * once with `VERQ_NESTED_TRANSACTION`, and `work` with it, rather than wait for ever; calls from
   * other async flows wait for the connection as before. On PostgreSQL such a call takes another
   * connection of the pool: it runs beside the transaction, does not see what `work` wrote, and
   * commits on its own.
   */
  async transaction<T>(
    work: (trx: Kysely<VerqDatabase>) => Promise<T>,
    attempts = this.busyRetry.attempts,
    options: TransactionOptions = {},
  ): Promise<T> {
    const { result, committed } = await this.#afterReconnecting(async () => {
      // The try whose COMMIT went out: its result, its callbacks, and what it appended.
      let cut: { result: T; callbacks: (() => void)[]; witnesses: CommitWitness[] } | undefined;
      try {
        return await this.#againWhenBusy(async () => {
          cut = undefined;
          // Each attempt collects its own: what a rolled-back attempt scheduled never runs.
          const callbacks: (() => void)[] = [];
          const hotPath = this.dialect.statements.hotPath;
          const result = await this.db.transaction().execute(async (trx) => {
            const witnesses = watchCommit(trx);
            this.#afterCommit.set(trx, callbacks);
            hotPath?.hold(trx);
            try {
              const done = await work(trx);
              cut = { result: done, callbacks, witnesses };
              return done;
            } finally {
              hotPath?.release(trx);
            }
          });
          return { result, committed: callbacks };
        }, attempts);
      } catch (error) {
        if (cut === undefined || !isVerqError(error, "VERQ_STORE_CONNECTION_LOST")) throw error;
        // Whether the cut COMMIT landed is read from the log, never guessed.
        if (cut.witnesses.length === 0) {
          if (options.witnessed !== true) throw error;
        } else if (!(await this.landed(cut.witnesses))) {
          throw new NotLanded(error);
        }
        return { result: cut.result, committed: cut.callbacks };
      }
    });
    for (const callback of committed) callback();
    return result;
  }

  /**
   * @internal Whether the events `witnesses` name stand in the log as they were written: true
   * when every one does, false when none does (their transaction did not land). Asked after a
   * COMMIT whose answer was lost. The events are written again, insert-or-nothing, in a
   * transaction that is then rolled back: an insert waits for a transaction still committing the
   * same places, so the answer never races the cut one. Events found at their places but unlike
   * the witnesses, or only some of them found, would mean the log was written beside the store's
   * arbiter: `VERQ_UNEXPECTED`.
   */
  async landed(witnesses: readonly CommitWitness[]): Promise<boolean> {
    const found = await this.#afterReconnecting(() => findWitnesses(this.db, this.dialect, witnesses));
    if (found === 0) return false;
    if (found === witnesses.length) return true;
    throw new VerqError(
      "VERQ_UNEXPECTED",
      `after a lost COMMIT, ${found} of the ${witnesses.length} events it appended stand in the log as written: the log was written outside the store`,
    );
  }

  /**
   * @internal Runs `work`, one statement that is atomic by itself, outside any transaction (see
   * `Statements.standaloneWrites`): again while the engine reports contention, its errors
   * translated, as {@link transaction} does.
   */
  async standalone<T>(work: (db: Kysely<VerqDatabase>) => Promise<T>): Promise<T> {
    return this.#againWhenBusy(() => work(this.db));
  }

  /**
   * @internal Runs `work`, which only reads, outside any transaction: again after a lost
   * connection (a read has no outcome to settle), within the store's `reconnectMs`, for a loop
   * that polls and must ride out a failover as the transactions do.
   */
  async read<T>(work: (db: Kysely<VerqDatabase>) => Promise<T>): Promise<T> {
    const lost = (error: unknown) =>
      this.dialect.errors.isConnectionLost(error) || isVerqError(error, "VERQ_STORE_CONNECTION_LOST");
    return afterReconnecting(
      () => work(this.db),
      lost,
      (error) => this.dialect.errors.isReadOnly(error),
      this.reconnectMs,
      this.path,
    );
  }

  /** Runs `attempt` again after a lost connection, as {@link afterReconnecting} says, within this store's `reconnectMs`. */
  #afterReconnecting<T>(attempt: () => Promise<T>): Promise<T> {
    const { errors } = this.dialect;
    return afterReconnecting(
      attempt,
      (error) => errors.isConnectionLost(error),
      (error) => errors.isReadOnly(error),
      this.reconnectMs,
      this.path,
    );
  }

  /**
   * Runs `attempt` again while the engine reports contention (up to `attempts` tries, within the
   * store's busy limit), with what it throws translated: a full disk (or a damaged file) is a
   * verq error whatever statement met it.
   */
  #againWhenBusy<T>(attempt: () => Promise<T>, attempts = this.busyRetry.attempts): Promise<T> {
    return retryWhenBusy(
      (error) => this.dialect.errors.isBusy(error),
      () =>
        attempt().catch((error: unknown) => {
          throw this.dialect.errors.storeError(error) ?? error;
        }),
      { ...this.busyRetry, attempts },
    );
  }

  /**
   * @internal Announces, from inside `trx`, that `topic` has news (jobs became claimable), for
   * the idle workers of every process that shares the store. This store's own subscribers are
   * woken right after the commit when `trx` is a transaction of {@link transaction} (never after
   * a rollback); the other processes hear the dialect's channel, which delivers on commit only
   * (NOTIFY on PostgreSQL). A transaction the store did not start commits where it cannot see it:
   * then its own subscribers hear the channel too, or, with none (SQLite), are woken now: a claim
   * they start waits for the one connection, so it runs after the commit (after a rollback it
   * finds nothing, which costs one empty claim).
   */
  async announce(trx: Kysely<VerqDatabase>, topic: WakeupTopic): Promise<void> {
    const { wakeups } = this.dialect;
    const callbacks = this.#afterCommit.get(trx);
    callbacks?.push(() => wakeups.wakeHere(topic));
    const seen = callbacks !== undefined;
    await wakeups.notify(trx, topic, seen);
    if (!seen && !wakeups.reachesOwnSubscribers) wakeups.wakeHere(topic);
  }

  /**
   * Folds every projection again from the event log, in one transaction: the jobs and their
   * redrive audit, the GUID ledger, and the file queue's messages with their `processed` and
   * duplicate rows, and the schedules. All or nothing: an event that cannot be folded leaves every
   * table as it was.
   * `events` counts the events folded.
   */
  async rebuildProjections(): Promise<{
    jobs: number;
    ledgerEntries: number;
    messages: number;
    schedules: number;
    events: number;
  }> {
    return this.transaction(async (trx) => {
      const jobs = await rebuildJobProjections(trx);
      const ledger = await rebuildGuidLedger(trx);
      const messages = await rebuildMessageProjections(trx);
      const schedules = await rebuildScheduleProjections(trx);
      return {
        jobs: jobs.jobs,
        ledgerEntries: ledger.entries,
        messages: messages.messages,
        schedules: schedules.schedules,
        events: jobs.events + ledger.events + messages.events + schedules.events,
      };
    });
  }

  /** How many events the log holds. */
  async countEvents(): Promise<number> {
    const row = await this.db
      .selectFrom("events")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The position of the newest event of the log, 0 when it has none. */
  async lastPosition(): Promise<number> {
    const row = await this.db
      .selectFrom("events")
      .select((eb) => eb.fn.max("position").as("last"))
      .executeTakeFirst();
    return Number(row?.last ?? 0);
  }

  /** Maintenance before the database's files are measured or copied: SQLite moves its write-ahead log into the file and truncates it; PostgreSQL has nothing to do. */
  async checkpoint(): Promise<void> {
    await this.dialect.maintenance.checkpoint(this.db);
  }

  /** Closes the database. Safe to call twice. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.dialect.wakeups.close();
    await this.db.destroy();
  }
}

/**
 * Opens a store and migrates it to the latest schema: a SQLite file at `path` (created if
 * missing, or `:memory:`), or the PostgreSQL database of `url` (`postgres://…` or
 * `postgresql://…`; a string argument that is such a URL opens PostgreSQL, any other string is a
 * SQLite path). Several processes (on PostgreSQL, several hosts) may open the same store, and
 * the first opens of a fresh one take turns. With `create: false` only a store that is there
 * opens (see {@link StoreCreateOption}). A table (or view) of the service's that has the name of
 * one of verq's (`VERQ_TABLES`) and is there before verq's migration makes it is
 * `VERQ_TABLE_CONFLICT`, naming it, before any migration runs. On PostgreSQL a malformed URL, a
 * server that cannot be reached, or one that refuses the user or a permission is
 * `VERQ_STORE_UNREACHABLE`, naming the host and never the password. On SQLite a file that is
 * there but is not a whole database (empty, truncated, not SQLite, damaged where the open reads,
 * or a `-wal` without its file) is `VERQ_STORE_CORRUPT`, and the file is left as it was: never
 * migrated over nor made new.
 *
 * @example
 * const store = await openStore({ path: "verq.sqlite" });
 * const shared = await openStore({ url: "postgres://verq@db.internal:5432/verq", poolSize: 10 });
 * const reader = await openStore({ url: "postgres://verq@db.internal:5432/verq", create: false });
 * const queue = new JobQueue(store);
 */
export async function openStore(options: OpenStoreOptions | string): Promise<VerqStore> {
  const resolved: OpenStoreOptions =
    typeof options !== "string" ? options : isPostgresUrl(options) ? { url: options } : { path: options };
  if ("url" in resolved) return openPostgresStore(resolved);
  const { path } = resolved;
  const { db, raw, errors, watch } = await openSqlite(path, resolved);
  const busyRetry: BusyRetry = { ...TRANSACTION_RETRY, limitMs: resolved.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS };
  const dialect = sqliteStoreDialect(sqliteHotPath(raw, errors, watch));
  const applied = await migrated(db, dialect, busyRetry, { create: resolved.create !== false, where: path });
  return new VerqStore(db, dialect, path, busyRetry, applied);
}

async function openPostgresStore(options: PostgresStoreOptions): Promise<VerqStore> {
  // Loaded only for PostgreSQL: a SQLite store never loads pg.
  const { ensureSchema, openPostgres, requireSchema, unreachable } = await import("./dialect/postgres-connection.ts");
  const { postgresWakeups } = await import("./dialect/postgres-wakeups.ts");
  const { db, listenConfig, prepared, reconnectMs } = await openPostgres(options);
  // Wake-ups reach the stores that see the same tables: those with the same search path.
  const { rows } = await sql<{ path: string }>`select current_setting('search_path') as path`.execute(db);
  const scope = rows[0]?.path ?? "";
  const dialect = postgresStoreDialect(postgresWakeups(listenConfig, scope), prepared);
  const where = describePostgresUrl(options.url);
  const create = options.create !== false;
  try {
    const applied = await migrated(db, dialect, TRANSACTION_RETRY, { create, where }, (trx) =>
      create ? ensureSchema(trx, options.schema) : requireSchema(trx, options.schema, where),
    );
    return new VerqStore(db, dialect, where, TRANSACTION_RETRY, applied, reconnectMs);
  } catch (error) {
    throw isVerqError(error) ? error : unreachable(options.url, error);
  }
}

/**
 * Brings a freshly opened database's schema up to date, under the dialect's migration lock, and
 * returns the migrations it applied; closes the database on failure.
 */
async function migrated(
  db: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  busyRetry: BusyRetry,
  options: MigrateOptions,
  before?: (db: Kysely<VerqDatabase>) => Promise<void>,
): Promise<string[]> {
  try {
    return await retryWhenBusy(
      (error) => dialect.errors.isBusy(error),
      () =>
        dialect.migrations.withMigrationLock(db, async (locked) => {
          await before?.(locked);
          return migrateToLatest(locked, dialect.migrations, options);
        }),
      { ...MIGRATION_RETRY, ...(busyRetry.limitMs === undefined ? {} : { limitMs: busyRetry.limitMs }) },
    );
  } catch (error) {
    await dialect.wakeups.close();
    await db.destroy();
    throw error;
  }
}
