import { Migrator, type Kysely, type Migration, type MigrationProvider } from "kysely";
import type { MigrationSupport } from "../dialect/migration-support.ts";
import { VERQ_MIGRATION_TABLES, VERQ_TABLES, TABLE_CREATED_BY } from "../verq-tables.ts";
import { storeNotInitialized, tableConflict } from "../store-open-errors.ts";
import type { VerqDatabase } from "../schema.ts";
import type { MigrationParts } from "./migration-parts.ts";
import * as initial from "./001-initial.ts";
import * as files from "./002-files.ts";
import * as ledger from "./003-ledger.ts";
import * as receiver from "./004-receiver.ts";
import * as leanPositions from "./005-lean-positions.ts";
import * as queues from "./006-queues.ts";
import * as cancellation from "./007-cancellation.ts";
import * as schedules from "./008-schedules.ts";
import * as retention from "./009-retention.ts";
import * as subscriptions from "./010-subscriptions.ts";
import * as kindsFailures from "./011-kinds-failures.ts";
import * as leanJobIndexes from "./012-lean-job-indexes.ts";
import * as declaredStreams from "./013-declared-streams.ts";
import * as traceContext from "./014-trace-context.ts";

/**
 * Every migration in order, each that differs per engine with the engine's part. Names sort;
 * never rename or edit one that has shipped.
 */
function migrationsFor(parts: MigrationParts): Record<string, Migration> {
  return {
    "001-initial": { up: (db) => initial.up(db as Kysely<VerqDatabase>, parts["001-initial"]) },
    "002-files": { up: (db) => files.up(db as Kysely<VerqDatabase>) },
    "003-ledger": { up: (db) => ledger.up(db as Kysely<VerqDatabase>) },
    "004-receiver": { up: (db) => receiver.up(db as Kysely<VerqDatabase>) },
    "005-lean-positions": { up: (db) => leanPositions.up(db as Kysely<VerqDatabase>, parts["005-lean-positions"]) },
    "006-queues": { up: (db) => queues.up(db as Kysely<VerqDatabase>) },
    "007-cancellation": { up: (db) => cancellation.up(db as Kysely<VerqDatabase>, parts["007-cancellation"]) },
    "008-schedules": { up: (db) => schedules.up(db as Kysely<VerqDatabase>) },
    "009-retention": { up: (db) => retention.up(db as Kysely<VerqDatabase>, parts["009-retention"]) },
    "010-subscriptions": { up: (db) => subscriptions.up(db as Kysely<VerqDatabase>, parts["010-subscriptions"]) },
    "011-kinds-failures": { up: (db) => kindsFailures.up(db as Kysely<VerqDatabase>) },
    "012-lean-job-indexes": { up: (db) => leanJobIndexes.up(db as Kysely<VerqDatabase>) },
    "013-declared-streams": { up: (db) => declaredStreams.up(db as Kysely<VerqDatabase>) },
    "014-trace-context": { up: (db) => traceContext.up(db as Kysely<VerqDatabase>) },
    "015-job-counts-index": { up: (db) => parts["015-job-counts-index"](db as Kysely<VerqDatabase>) },
  };
}

/** How {@link migrateToLatest} may treat the database, and how its errors name it. */
export interface MigrateOptions {
  /** False: a database where no migration ran yet is `VERQ_STORE_NOT_INITIALIZED`, not made a store. */
  readonly create: boolean;
  /** The store as messages name it (`VerqStore.path`). */
  readonly where: string;
}

/**
 * Brings the database to the latest schema and returns the names of the migrations it applied,
 * oldest first (none when it was already there). Before any of them runs: with `create: false`,
 * a database where none ran yet is refused (`VERQ_STORE_NOT_INITIALIZED`); and a table (or view)
 * of the name of one that a pending migration creates is not verq's (`VERQ_TABLE_CONFLICT`). Both
 * leave the database as it was, bookkeeping included.
 */
export async function migrateToLatest(
  db: Kysely<VerqDatabase>,
  engine: MigrationSupport,
  options: MigrateOptions,
): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrationsFor(engine.parts)) };
  const schema = await engine.migrationSchema(db);
  const [migrationTableName, migrationLockTableName] = VERQ_MIGRATION_TABLES;
  const migrator = new Migrator({
    db,
    provider,
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
    migrationTableName,
    migrationLockTableName,
    // Areas number their migrations independently (002 files, 003 ledger, 004 receiver).
    allowUnorderedMigrations: true,
    ...(engine.ownTransaction === true ? { disableTransactions: true } : {}),
  });
  // The tables first, the bookkeeping after: a migration commits its tables with its bookkeeping
  // row, so a table read here that another process's migration made is recorded by then, never
  // taken for a service's own.
  const tables = (await db.introspection.getTables({ withInternalKyselyTables: true }))
    .filter((table) => schema === undefined || table.schema === schema)
    .map((table) => table.name);
  const migrations = await migrator.getMigrations();
  const pending = new Set(migrations.filter((m) => m.executedAt === undefined).map((m) => m.name));
  if (pending.size === 0) return [];
  const where = schema === undefined ? options.where : `${options.where}, schema ${schema}`;
  if (pending.size === migrations.length && !options.create) throw storeNotInitialized(where);
  const conflicts = VERQ_TABLES.filter((table) => pending.has(TABLE_CREATED_BY[table]) && tables.includes(table));
  if (conflicts.length > 0) throw tableConflict(conflicts, where);
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) throw error instanceof Error ? error : new Error("migration failed", { cause: error });
  return results.filter((result) => result.status === "Success").map((result) => result.migrationName);
}
