import { sql } from "kysely";
import { sqliteMigrationParts } from "../migrations/sqlite/sqlite-migration-parts.ts";
import type { EventPositions } from "./event-positions.ts";
import type { HotPath } from "./hot-path.ts";
import type { MigrationSupport } from "./migration-support.ts";
import { sqliteErrors } from "./sqlite-errors.ts";
import { sqliteBatch } from "./sqlite-batches.ts";
import type { Statements } from "./statements.ts";
import type { StoreDialect } from "./store-dialect.ts";
import { localWakeups } from "./wakeups.ts";

/** How SQLite runs the store's statements: one writer, which holds the whole database. */
export const sqliteStatements: Statements = {
  batch: sqliteBatch,
  // Its hot path keeps every statement it runs prepared by text.
  fixed: (query) => query,
  isOneOf: (expression, values) => sql<boolean>`${sql.raw(expression)} in (${sql.join(values)})`,
  // A power of two written into the text (see Statements.claimLimit).
  claimLimit: (n) => sql.raw(String(2 ** Math.ceil(Math.log2(Math.max(1, n))))),
  // SQLite undoes only the failed statement; the transaction goes on.
  isolated: (_trx, work) => work(),
  // BEGIN IMMEDIATE already holds the single write lock.
  exclusive: () => Promise.resolve(),
  claimLockSuffix: "",
  parallelWrites: false,
  standaloneWrites: false,
  withClaimSettings: (select) => select,
  jsonText: (column, key) => sql<string | null>`json_extract(${sql.ref(column)}, ${sql.lit(`$.${key}`)})`,
  notSought: (column) => sql`+${sql.ref(column)}`,
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
