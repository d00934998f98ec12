import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/**
 * Per queue with pending jobs, the earliest time one of them is due (`available_at`), read from
 * the partial index `jobs_pending_due` alone (queue is its first column): its cost grows with
 * the pending jobs, never with the finished ones.
 */
export async function selectOldestDuePending(db: Kysely<VerqDatabase>): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom("jobs")
    .select(["queue", (eb) => eb.fn.min("available_at").as("due")])
    // As the index names its condition (see STATE_IS in selectJobsPage.ts).
    .where(sql.raw<boolean>("state = 'pending'"))
    .groupBy("queue")
    .execute();
  return new Map(rows.map((row) => [row.queue, Number(row.due)]));
}
