import type { Job } from "@verq/core";
import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { FINISHED_JOBS } from "../../migrations/012-lean-job-indexes.ts";
import { rowToJob } from "./jobRow.ts";

/** Where a prune scan stands: the last job it looked at. */
export interface PruneCursor {
  readonly updatedAt: number;
  readonly id: string;
}

/**
 * Finished jobs (`done` or `dead`) last changed at or before `cutoff`, oldest change first (ties
 * by id), at most `limit`, after `cursor`, through the partial `jobs_finished_updated` index
 * (whose condition, FINISHED_JOBS, the query repeats word for word). A query only
 * narrows the search: the job machine decides each job, and would refuse a pending or leased one.
 */
export async function selectPruneCandidates(
  db: Kysely<VerqDatabase>,
  cutoff: number,
  limit: number,
  cursor: PruneCursor | null,
): Promise<Job[]> {
  let query = db.selectFrom("jobs").selectAll().where(sql.raw<boolean>(FINISHED_JOBS)).where("updated_at", "<=", cutoff);
  if (cursor !== null) {
    query = query.where((eb) =>
      eb.or([
        eb("updated_at", ">", cursor.updatedAt),
        eb.and([eb("updated_at", "=", cursor.updatedAt), eb("id", ">", cursor.id)]),
      ]),
    );
  }
  const rows = await query.orderBy("updated_at").orderBy("id").limit(limit).execute();
  return rows.map(rowToJob);
}
