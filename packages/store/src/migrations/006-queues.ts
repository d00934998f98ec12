import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/**
 * Named queues, priorities and a global concurrency limit per queue:
 * - `jobs.queue` and `jobs.priority`: every job written before is in `default` with priority 0,
 *   as the fold of its `job.enqueued` (which names neither) says;
 * - `jobs_pending_due` again, now in claim order within a queue (priority first, then due time and
 *   enqueue order), so that a claim from one queue walks the index and stops at its LIMIT;
 * - `jobs_leased_queue`: the count of a queue's leased jobs, which a limited claim reads, without
 *   a scan of done jobs;
 * - `queues`: the projection of the `queue` streams, one row per queue that ever had a limit.
 */
export async function up(db: Kysely<VerqDatabase>): Promise<void> {
  await sql`alter table jobs add column queue text not null default 'default'`.execute(db);
  await sql`alter table jobs add column priority integer not null default 0`.execute(db);
  await db.schema.dropIndex("jobs_pending_due").execute();
  await sql`create index jobs_pending_due on jobs (queue, priority desc, available_at, enqueue_position)
    where state = 'pending'`.execute(db);
  await db.schema.createIndex("jobs_leased_queue").on("jobs").column("queue").where(sql.ref("state"), "=", "leased").execute();
  await db.schema
    .createTable("queues")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("max_leased", "integer", (c) => c.check(sql`max_leased is null or max_leased >= 1`))
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .execute();
}
