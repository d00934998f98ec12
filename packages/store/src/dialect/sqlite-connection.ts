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
import type { SqliteOptions } from "./sqlite-options.ts";
import { sqliteStoreDialect } from "./sqlite-dialect.ts";

/**
 * Kysely's SQLite driver begins deferred transactions: two processes that both read and then
 * write would deadlock into SQLITE_BUSY. Every verq transaction writes, so it takes the write
 * lock up front with `BEGIN IMMEDIATE`, and the busy timeout makes the other process wait.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
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
  constructor(config: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
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
function withStatementCache(db: Database.Database): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => db.close(),
    prepare: (text: string): SqliteStatement => {
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

/** The raw handle and the Kysely instance over it. */
export interface SqliteHandles {
  readonly raw: Database.Database;
  readonly db: Kysely<VerqDatabase>;
}

/**
 * Switching a fresh file to WAL needs a moment of exclusive access; when several processes open
 * one new file at once, the pragma can fail with SQLITE_BUSY outside any busy handler. Retry it.
 */
const JOURNAL_MODE_RETRY: BusyRetry = { attempts: 200, stepMs: 2, maxPauseMs: 50 };

/** Opens (creating if needed) the SQLite file at `path`, or an in-memory database for `:memory:`. */
export async function openSqlite(path: string, options: SqliteOptions = {}): Promise<SqliteHandles> {
  const busyTimeoutMs = options.busyTimeoutMs ?? 5_000;
  const raw = new Database(path, { timeout: busyTimeoutMs });
  const journalMode = options.journalMode ?? "wal";
  if (path !== ":memory:") {
    try {
      await retryWhenBusy(
        (error) => sqliteStoreDialect.isBusy(error),
        () => raw.pragma(`journal_mode = ${journalMode}`),
        JOURNAL_MODE_RETRY,
      );
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
  const db = new Kysely<VerqDatabase>({
    dialect: new ImmediateSqliteDialect({ database: withStatementCache(raw) }),
  });
  return { raw, db };
}
