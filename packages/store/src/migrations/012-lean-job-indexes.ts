import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/**
 * Fewer index pages written per job step: every claim and every finish wrote a page of each
 * index whose columns it changed, and two of them served reads that need far less.
 * - `jobs_updated` becomes `jobs_finished_updated`, of finished jobs only (`done` and `dead`):
 *   the prune scan reads only those (the job machine refuses every other), and an enqueue or a
 *   claim no longer writes it;
 * - `jobs_leased_expiry` and `jobs_leased_queue` become one `jobs_leased` (queue, lease end,
 *   enqueue order) of leased jobs: the search for expired leases of a claim's queues and the
 *   count of a limited queue's leases both read it, and a claim or a finish writes one leased
 *   index instead of two.
 */
/**
 * The condition of `jobs_finished_updated`, which a query repeats word for word to read through
 * it (SQLite uses a partial index only for a query that names its condition as written).
 */
export const FINISHED_JOBS = "state in ('done', 'dead')";

export async function up(db: Kysely<VerqDatabase>): Promise<void> {
  await sql`drop index jobs_updated`.execute(db);
  await sql`create index jobs_finished_updated on jobs (updated_at, id) where ${sql.raw(FINISHED_JOBS)}`.execute(db);
  await sql`drop index jobs_leased_expiry`.execute(db);
  await sql`drop index jobs_leased_queue`.execute(db);
  await sql`create index jobs_leased on jobs (queue, lease_until, enqueue_position) where state = 'leased'`.execute(db);
}
