import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/**
 * The `schedules` projection: one row per schedule, the fold of its `schedule` stream, written in
 * the same transaction as its events. `last_slot` is the latest slot enqueued (null before the
 * first); schedulers read the active rows on every poll round, so they are indexed by state.
 */
export async function up(db: Kysely<VerqDatabase>): Promise<void> {
  await db.schema
    .createTable("schedules")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("state", "text", (c) => c.notNull().check(sql`state in ('active', 'removed')`))
    .addColumn("cron", "text", (c) => c.notNull())
    .addColumn("timezone", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("queue", "text", (c) => c.notNull())
    .addColumn("since", "bigint", (c) => c.notNull())
    .addColumn("last_slot", "bigint")
    .addColumn("fired", "integer", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("schedules_state").on("schedules").column("state").execute();
}
