import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import type { MigrationStep } from "./migration-parts.ts";

/**
 * Durable subscriptions to the event log (SPEC E1): one checkpoint per subscriber name, the
 * position of the last event its handler accepted. The checkpoint is the reader's own state, not
 * a fact of any stream, so it is a row rather than an event (an event per checkpoint would feed
 * the log to itself). It only ever moves forward: every write is guarded by
 * `position < new position`. The engine's part adds what a reader needs to never skip an event
 * that commits late (PostgreSQL: `postgres/010-subscriptions.ts`).
 */
export async function up(db: Kysely<VerqDatabase>, engine: MigrationStep): Promise<void> {
  await db.schema
    .createTable("subscriptions")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("position", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await engine(db);
}
