import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/**
 * `jobs_counts` (SQLite): the jobs by queue, kind and state, with their lease expiries, so the
 * counts an operator reads (`JobQueue.stats`: the dashboard's overview and queues page,
 * `/metrics`, `verq jobs stats`) come from the index alone, in its order, instead of from every
 * row of the table and a sort of them. State is not its first column: a read of one state (the
 * dead jobs by the time they died, the pending ones by their due time) keeps the partial index of
 * that state, which the planner would otherwise leave for this one. PostgreSQL has no part: its
 * walk of such an index costs what its scan of the table does, and the index would be written by
 * every insert and every move of a job (docs/performance.md, "What the counts index costs").
 */
export async function createJobCountsIndex(db: Kysely<VerqDatabase>): Promise<void> {
  await sql`create index jobs_counts on jobs (queue, kind, state, lease_expiries)`.execute(db);
}
