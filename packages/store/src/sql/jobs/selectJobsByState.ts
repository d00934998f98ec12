import type { DeadReason, Job, JobState } from "@verq/core";
import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { FINISHED_JOBS } from "../../migrations/012-lean-job-indexes.ts";
import { rowToJob } from "./jobRow.ts";

/** Which jobs of a state a listing reads: dead ones of one reason or of any reason but some, and jobs of one kind (`null`: without one). */
export interface StateFilter {
  readonly reason?: DeadReason | undefined;
  readonly exceptReasons?: readonly DeadReason[] | undefined;
  readonly kind?: string | null | undefined;
}

/** Jobs in one state matching `filter`, oldest first by the time they got there. */
export async function selectJobsByState(
  db: Kysely<VerqDatabase>,
  state: JobState,
  limit: number,
  filter: StateFilter = {},
): Promise<Job[]> {
  let query = db.selectFrom("jobs").selectAll().where("state", "=", state);
  // Done jobs in the order they finished, through the partial `jobs_finished_updated` index
  // (see FINISHED_JOBS).
  if (state === "done") query = query.where(sql.raw<boolean>(FINISHED_JOBS));
  if (filter.reason !== undefined) query = query.where("reason", "=", filter.reason);
  if (filter.exceptReasons !== undefined && filter.exceptReasons.length > 0) {
    query = query.where("reason", "not in", filter.exceptReasons);
  }
  if (filter.kind !== undefined)
    query = filter.kind === null ? query.where("kind", "is", null) : query.where("kind", "=", filter.kind);
  const rows = await query
    .orderBy(state === "dead" ? "dead_since" : "updated_at")
    .orderBy("id")
    .limit(limit)
    .execute();
  return rows.map(rowToJob);
}
