import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/**
 * `jobs_counts`: the jobs by queue, kind and state, with their lease expiries, so the counts an
 * operator reads (`JobQueue.stats`: the dashboard's overview and queues page, `/metrics`, `verq
 * jobs stats`) come from the index alone, in its order, instead of from every row of the table
 * and a sort of them. Every claim and finish writes one more index entry for it: the figures of
 * both are in docs/performance.md ("What the counts index costs"). State is not its first column:
 * a read of one state (the dead jobs by the time they died, the pending ones by their due time)
 * keeps the partial index of that state, which the planner would otherwise leave for this one.
 */
export async function up(db: Kysely<VerqDatabase>): Promise<void> {
  await sql`create index jobs_counts on jobs (queue, kind, state, lease_expiries)`.execute(db);
}
