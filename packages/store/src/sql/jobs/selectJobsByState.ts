import type { DeadReason, Job, JobState } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { rowToJob } from "./jobRow.ts";

/**
 * Jobs in one state (dead ones optionally of one reason, or of any reason but `exceptReasons`),
 * oldest first by the time they got there.
 */
export async function selectJobsByState(
  db: Kysely<VerqDatabase>,
  state: JobState,
  limit: number,
  reason?: DeadReason,
  exceptReasons: readonly DeadReason[] = [],
): Promise<Job[]> {
  let query = db.selectFrom("jobs").selectAll().where("state", "=", state);
  if (reason !== undefined) query = query.where("reason", "=", reason);
  if (exceptReasons.length > 0) query = query.where("reason", "not in", exceptReasons);
  const rows = await query
    .orderBy(state === "dead" ? "dead_since" : "updated_at")
    .orderBy("id")
    .limit(limit)
    .execute();
  return rows.map(rowToJob);
}
