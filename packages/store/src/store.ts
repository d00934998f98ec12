import { sql, type Kysely } from "kysely";
import { sqliteStoreDialect } from "./dialect/sqlite-dialect.ts";
import { openSqlite } from "./dialect/sqlite-connection.ts";
import type { SqliteOptions } from "./dialect/sqlite-options.ts";
import type { StoreDialect } from "./dialect/store-dialect.ts";
import { migrateToLatest } from "./migrations/migrate.ts";
import type { VerqDatabase } from "./schema.ts";
import { retryWhenBusy, TRANSACTION_RETRY, type BusyRetry } from "./retry-when-busy.ts";
import { rebuildGuidLedger } from "./sql/ledger/rebuildGuidLedger.ts";
import { rebuildJobProjections } from "./sql/jobs/rebuildJobProjections.ts";
import { rebuildMessageProjections } from "./sql/files/rebuildMessageProjections.ts";

/** Migrations of a fresh file that another process is migrating wait for it: 20 tries, 10 ms steps. */
const MIGRATION_RETRY: BusyRetry = { attempts: 20, stepMs: 10, maxPauseMs: 200 };

/** Where and how to open a store. */
export interface OpenStoreOptions extends SqliteOptions {
  /** A file path (created if missing) or `:memory:`. */
  readonly path: string;
}

/**
 * The store owns persistence: one database, its dialect, the event log and the projections.
 * Services (the job queue, later the ledger) take a store and never open connections themselves.
 */
export class VerqStore {
  readonly db: Kysely<VerqDatabase>;
  readonly dialect: StoreDialect;
  readonly path: string;
  #closed = false;

  /** @internal use {@link openStore}. */
  constructor(db: Kysely<VerqDatabase>, dialect: StoreDialect, path: string) {
    this.db = db;
    this.dialect = dialect;
    this.path = path;
  }

  /**
   * Runs `work` in one write transaction and retries it, from the start, when another process
   * holds the database (SQLITE_BUSY) — up to `attempts` times with a short growing pause, then
   * `VERQ_STORE_BUSY`. `work` must therefore do nothing outside the database that it cannot
   * repeat. A service runs its own writes here too, and passes `trx` to
   * {@link JobQueue.enqueue} to enqueue in the same transaction (SPEC P2); `trx.withTables<T>()`
   * types the service's own tables.
   */
  async transaction<T>(work: (trx: Kysely<VerqDatabase>) => Promise<T>, attempts = TRANSACTION_RETRY.attempts): Promise<T> {
    return retryWhenBusy(
      (error) => this.dialect.isBusy(error),
      () => this.db.transaction().execute(work),
      {
        ...TRANSACTION_RETRY,
        attempts,
      },
    );
  }

  /**
   * Folds every projection again from the event log, in one transaction: the jobs and their
   * redrive audit, the GUID ledger, and the file queue's messages with their `processed` and
   * duplicate rows. All or nothing: an event that cannot be folded leaves every table as it was.
   * `events` counts the events folded.
   */
  async rebuildProjections(): Promise<{ jobs: number; ledgerEntries: number; messages: number; events: number }> {
    return this.transaction(async (trx) => {
      const jobs = await rebuildJobProjections(trx);
      const ledger = await rebuildGuidLedger(trx);
      const messages = await rebuildMessageProjections(trx);
      return {
        jobs: jobs.jobs,
        ledgerEntries: ledger.entries,
        messages: messages.messages,
        events: jobs.events + ledger.events + messages.events,
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

  /** Moves the write-ahead log into the database file and truncates it (SQLite), e.g. before measuring the file. */
  async checkpoint(): Promise<void> {
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(this.db);
  }

  /** Closes the database. Safe to call twice. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.db.destroy();
  }
}

/**
 * Opens a SQLite store at `path` (a file, created if missing, or `:memory:`) and migrates it to
 * the latest schema. Several processes may open the same file.
 *
 * @example
 * const store = await openStore({ path: "verq.sqlite" });
 * const queue = new JobQueue(store);
 */
export async function openStore(options: OpenStoreOptions | string): Promise<VerqStore> {
  const resolved: OpenStoreOptions = typeof options === "string" ? { path: options } : options;
  const { db } = await openSqlite(resolved.path, resolved);
  const store = new VerqStore(db, sqliteStoreDialect, resolved.path);
  try {
    await retryWhenBusy(
      (error) => sqliteStoreDialect.isBusy(error),
      () => migrateToLatest(db, sqliteStoreDialect),
      MIGRATION_RETRY,
    );
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
