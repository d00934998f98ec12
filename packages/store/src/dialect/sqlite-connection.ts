import fs from "node:fs";
import Database from "better-sqlite3";
import {
  CompiledQuery,
  Kysely,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type SqliteDatabase,
  type SqliteStatement,
} from "kysely";
import { retryWhenBusy, type BusyRetry } from "../retry-when-busy.ts";
import type { VerqDatabase } from "../schema.ts";
import { checkSqliteFile } from "./sqlite-file-check.ts";
import { DEFAULT_BUSY_TIMEOUT_MS, type SqliteOptions } from "./sqlite-options.ts";
import { damageOf, sqliteCorrupt, sqliteErrors, sqliteStoreError } from "./sqlite-errors.ts";
import { StoreErrors, withStoreErrors } from "./store-error-driver.ts";
import { ConnectionWatch } from "./connection-watch.ts";
import { sqliteFileNotFound, storeNotInitialized } from "../store-open-errors.ts";
import { VERQ_MIGRATION_TABLES } from "../verq-tables.ts";

/**
 * Kysely's SQLite driver begins deferred transactions: two processes that both read and then
 * write would deadlock into SQLITE_BUSY. Every verq transaction writes, so it takes the write
 * lock up front with `BEGIN IMMEDIATE`, and the busy timeout makes the other process wait.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  readonly #raw: Database.Database;
  readonly #watch: ConnectionWatch;
  constructor(config: ConstructorParameters<typeof SqliteDriver>[0], raw: Database.Database, watch: ConnectionWatch) {
    super(config);
    this.#raw = raw;
    this.#watch = watch;
  }
  /** The one connection; a wait for it fails when its holder makes no progress (see ConnectionWatch). */
  override async acquireConnection(): Promise<DatabaseConnection> {
    return this.#watch.acquire(
      () => super.acquireConnection(),
      () => this.releaseConnection(),
    );
  }
  override async releaseConnection(): Promise<void> {
    this.#watch.released();
    await super.releaseConnection();
  }
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
  /**
   * SQLite may have rolled the whole transaction back itself (after `SQLITE_FULL`, for one): a
   * ROLLBACK then fails with "no transaction is active", and that error would hide the one that
   * ended the transaction.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.#raw.inTransaction) await super.rollbackTransaction(connection);
  }
}

/**
 * SQLite runs DDL inside transactions, but Kysely's adapter says it does not, so its migrator
 * would run migrations outside any transaction with a no-op lock: two processes opening one
 * fresh file would both create the tables. Saying yes makes the migrator run the whole batch in
 * one `BEGIN IMMEDIATE` transaction, so the second process waits and then finds it done.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: ConstructorParameters<typeof SqliteDialect>[0];
  readonly #raw: Database.Database;
  readonly #errors: StoreErrors;
  readonly #watch: ConnectionWatch;
  constructor(
    config: ConstructorParameters<typeof SqliteDialect>[0],
    raw: Database.Database,
    errors: StoreErrors,
    watch: ConnectionWatch,
  ) {
    super(config);
    this.#config = config;
    this.#raw = raw;
    this.#errors = errors;
    this.#watch = watch;
  }
  // A full disk and a damaged file reach every caller as verq's codes (see sqliteStoreError).
  override createDriver(): Driver {
    return withStoreErrors(new ImmediateSqliteDriver(this.#config, this.#raw, this.#watch), this.#errors);
  }
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

/**
 * Kysely's driver prepares every statement on every call; this keeps each prepared statement
 * for reuse behind the structural `SqliteDatabase` interface (the driver is single-connection
 * and serialised, so a statement is never used by two queries at once).
 */
function withStatementCache(db: Database.Database, watch: ConnectionWatch): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => db.close(),
    prepare: (text: string): SqliteStatement => {
      watch.ran();
      let statement = cache.get(text);
      if (statement === undefined) {
        statement = db.prepare(text);
        if (cache.size > 500) cache.clear();
        cache.set(text, statement);
      }
      return statement;
    },
  };
}

/** The raw handle, the Kysely instance over it, what both throw for an engine error, and the watch on its one connection. */
export interface SqliteHandles {
  readonly raw: Database.Database;
  readonly db: Kysely<VerqDatabase>;
  readonly errors: StoreErrors;
  readonly watch: ConnectionWatch;
}

/** How {@link openSqlite} opens a file, beside {@link SqliteOptions}. */
export interface SqliteOpenOptions extends SqliteOptions {
  /**
   * False: only a store that is there is opened: a missing file is `VERQ_FILE_NOT_FOUND`, a
   * database where no migration of verq's ran `VERQ_STORE_NOT_INITIALIZED`, each found before
   * anything is written (the journal mode included).
   */
  readonly create?: boolean;
}

/**
 * Switching a fresh file to WAL needs a moment of exclusive access; when several processes open
 * one new file at once, the pragma (and the first reads, while another process recovers the
 * file) can fail with SQLITE_BUSY outside any busy handler. Retry them, within the wait limit.
 */
const JOURNAL_MODE_RETRY: BusyRetry = { attempts: 200, stepMs: 2, maxPauseMs: 50 };

/**
 * Reads what every open must be able to read before anything is written: the header and the
 * schema (and, with `quickCheck`, every page). A damaged file fails here with
 * `VERQ_STORE_CORRUPT`, before the journal-mode switch or a migration could write to it.
 */
function verifyReadable(raw: Database.Database, path: string, quickCheck: boolean): void {
  try {
    raw.pragma("schema_version");
    raw.prepare("select count(*) from sqlite_master").get();
    if (!quickCheck) return;
    const findings = raw.pragma("quick_check(5)", { simple: false }) as { quick_check: string }[];
    const problems = findings.map((row) => row.quick_check).filter((text) => text !== "ok");
    if (problems.length > 0) throw sqliteCorrupt(`quick_check: ${problems.join("; ").slice(0, 300)}`, undefined, path);
  } catch (error) {
    const damage = damageOf(error);
    throw damage === undefined ? error : sqliteCorrupt(damage, error, path);
  }
}

/**
 * Opens (creating if needed, unless `create: false`) the SQLite file at `path`, or an in-memory
 * database for `:memory:`.
 * A file that is there but damaged, empty or not a database, or a log without its file, is
 * refused with `VERQ_STORE_CORRUPT` and left as it was (see {@link checkSqliteFile}).
 */
export async function openSqlite(path: string, options: SqliteOpenOptions = {}): Promise<SqliteHandles> {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const memory = path === ":memory:" || path === "";
  const create = options.create !== false;
  if (memory && !create) throw storeNotInitialized(path === "" ? "(an empty path)" : path);
  if (!memory) await checkSqliteFile(path);
  if (!memory && !create && !fs.existsSync(path)) throw sqliteFileNotFound(path);
  const raw = new Database(path, { timeout: busyTimeoutMs });
  const journalMode = options.journalMode ?? "wal";
  if (!memory) {
    try {
      const retry = { ...JOURNAL_MODE_RETRY, limitMs: busyTimeoutMs };
      const isBusy = (error: unknown) => sqliteErrors.isBusy(error);
      await retryWhenBusy(isBusy, () => verifyReadable(raw, path, options.quickCheck === true), retry);
      if (!create && !(await retryWhenBusy(isBusy, () => hasMigrations(raw), retry))) throw storeNotInitialized(path);
      await retryWhenBusy(isBusy, () => raw.pragma(`journal_mode = ${journalMode}`), retry);
    } catch (error) {
      raw.close();
      throw error;
    }
  }
  raw.pragma(`synchronous = ${options.synchronous ?? (journalMode === "wal" ? "normal" : "full")}`);
  raw.pragma("foreign_keys = on");
  // REPLACE deletes the conflicting row; only with recursive triggers does that delete meet the
  // append-only trigger, so `INSERT OR REPLACE` cannot rewrite an event either.
  raw.pragma("recursive_triggers = on");
  const errors = new StoreErrors(sqliteStoreError);
  const watch = new ConnectionWatch(busyTimeoutMs);
  const db = new Kysely<VerqDatabase>({
    dialect: new ImmediateSqliteDialect({ database: withStatementCache(raw, watch) }, raw, errors, watch),
  });
  return { raw, db, errors, watch };
}

/** True when at least one of verq's migrations ran in the database: its bookkeeping table is there and not empty. Reads only. */
function hasMigrations(raw: Database.Database): boolean {
  const [bookkeeping] = VERQ_MIGRATION_TABLES;
  const table = raw.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(bookkeeping);
  return table !== undefined && raw.prepare(`select 1 from "${bookkeeping}" limit 1`).get() !== undefined;
}
