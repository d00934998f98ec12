import { JOB_STREAM, VersionConflict } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/**
 * Deletes whole job streams and their `jobs` rows, in the caller's transaction (retention): the
 * job machine accepted a prune of each job in `ids`, its `job.pruned` event was appended right
 * after the version decided on (the UNIQUE constraint proved that nobody moved the job since),
 * and the caller has already inserted their archive rows and appended the audit event, so the
 * newest event of the log is never one deleted here. `redrives` audit rows are kept. A row that
 * is not there is `VERQ_VERSION_CONFLICT` (the transaction must roll back). Returns how many
 * events were deleted.
 */
export async function deleteJobStreams(trx: Kysely<VerqDatabase>, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await trx
    .deleteFrom("jobs")
    .where("id", "in", [...ids])
    .executeTakeFirst();
  if (Number(rows.numDeletedRows) !== ids.length) throw new VersionConflict(JOB_STREAM, ids[0] ?? "", 0);
  const events = await trx
    .deleteFrom("events")
    .where("stream_type", "=", JOB_STREAM)
    .where("stream_id", "in", [...ids])
    .executeTakeFirst();
  return Number(events.numDeletedRows);
}
