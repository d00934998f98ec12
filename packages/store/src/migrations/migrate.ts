import { Migrator, type Kysely, type Migration, type MigrationProvider } from "kysely";
import type { MigrationSupport } from "../dialect/migration-support.ts";
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
  };
}

/** Brings the database to the latest schema; a no-op when it is already there. */
export async function migrateToLatest(db: Kysely<VerqDatabase>, engine: MigrationSupport): Promise<void> {
  const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrationsFor(engine.parts)) };
  const schema = await engine.migrationSchema(db);
  const migrator = new Migrator({
    db,
    provider,
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
    migrationTableName: "verq_migrations",
    migrationLockTableName: "verq_migrations_lock",
    // Areas number their migrations independently (002 files, 003 ledger, 004 receiver).
    allowUnorderedMigrations: true,
  });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error instanceof Error ? error : new Error("migration failed", { cause: error });
}
