import { sql } from "kysely";
import { sqliteMigrationParts } from "../migrations/sqlite/sqlite-migration-parts.ts";
import type { EventPositions } from "./event-positions.ts";
import type { HotPath } from "./hot-path.ts";
import type { MigrationSupport } from "./migration-support.ts";
import { sqliteErrors } from "./sqlite-errors.ts";
import type { BatchColumnType, Statements } from "./statements.ts";
import type { StoreDialect } from "./store-dialect.ts";
import { localWakeups } from "./wakeups.ts";

const placeholderCache = new Map<string, string>();

/** How SQLite runs the store's statements: one writer, which holds the whole database. */
export const sqliteStatements: Statements = {
  // `(?, ?), (?, ?)`, cached: each batch size has one statement text, which the store's statement cache prepares once.
  batchValues(rows: number, types: readonly BatchColumnType[]): string {
    const key = `${rows}x${types.length}`;
    let text = placeholderCache.get(key);
    if (text === undefined) {
      const row = `(${types.map(() => "?").join(", ")})`;
      text = Array.from({ length: rows }, () => row).join(", ");
      placeholderCache.set(key, text);
    }
    return text;
  },
  // Well under SQLite's 32,766.
  maxParameters: 32_000,
  // SQLite undoes only the failed statement; the transaction goes on.
  isolated: (_trx, work) => work(),
  // BEGIN IMMEDIATE already holds the single write lock.
  exclusive: () => Promise.resolve(),
  claimLockSuffix: "",
  beforeClaim: () => Promise.resolve(),
  jsonText: (column, key) => sql<string | null>`json_extract(${sql.ref(column)}, ${sql.lit(`$.${key}`)})`,
};

/** One writer, which commits before the next one takes a position: what is visible is settled. */
export const sqlitePositions: EventPositions = {
  markPositions: () => Promise.resolve({ position: Number.MAX_SAFE_INTEGER, fence: null }),
  positionsSettled: () => Promise.resolve(true),
};

/** SQLite's side of the migrations: one file, one schema, and the migrations' own write lock. */
export const sqliteMigrations: MigrationSupport = {
  // The migrations run in one BEGIN IMMEDIATE transaction (see sqlite-connection.ts): that is the lock.
  withMigrationLock: (db, work) => work(db),
  migrationSchema: () => Promise.resolve(undefined),
  parts: sqliteMigrationParts,
};

/** The SQLite dialect of one store, whose `hotPath` runs on its one connection. */
export function sqliteStoreDialect(hotPath: HotPath): StoreDialect {
  return {
    name: "sqlite",
    statements: { ...sqliteStatements, hotPath },
    errors: sqliteErrors,
    positions: sqlitePositions,
    wakeups: localWakeups(),
    maintenance: {
      async checkpoint(db) {
        await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
      },
    },
    migrations: sqliteMigrations,
  };
}
