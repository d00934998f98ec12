import { JOB_STREAM, canonicalJson, type Job, type JobEvent, type JobStreamState } from "@verq/core";
import type { StreamProjection } from "../command-path.ts";
import type { StoreDialect } from "../dialect/store-dialect.ts";
import { positionKey } from "../sql/events/insertEventRows.ts";
import { insertJobRows, type NewJobRow } from "../sql/jobs/insertJobRows.ts";
import { projectRedrives } from "../sql/jobs/projectRedrives.ts";
import { selectJobsById } from "../sql/jobs/selectJobsById.ts";
import { updateJobRows, type JobRowChange } from "../sql/jobs/updateJobRows.ts";

/**
 * How the store keeps jobs on the one command path: loaded by id from `jobs`; projected as the
 * `jobs` row of each job (inserted, in one statement, for a job created from version 0, with its
 * canonical payload and the position of its `job.enqueued`; else rewritten, in one statement,
 * only while still at the version decided on: `VERQ_VERSION_CONFLICT` otherwise) and a
 * `redrives` audit row for each `job.redriven`. Several changes of one job in a batch are
 * chained; its row is written once, from the last. `payloadText` gives a payload's canonical
 * JSON (by default {@link canonicalJson}; the job queue passes the text it already made).
 */
export function jobStream(
  dialect: StoreDialect,
  payloadText: (payload: Job["payload"]) => string = canonicalJson,
): StreamProjection<JobStreamState, JobEvent> {
  return {
    streamType: JOB_STREAM,
    idOf: (job) => job.id,
    load: (trx, ids) => selectJobsById(trx, dialect, ids),
    async project(trx, changes, positions) {
      // Per job: the version its row has now (0: none yet) and its last state.
      const byJob = new Map<string, { beforeVersion: number; after: Job }>();
      for (const { before, after } of changes) {
        byJob.set(after.id, { beforeVersion: byJob.get(after.id)?.beforeVersion ?? before.version, after: existing(after) });
      }
      const created: NewJobRow[] = [];
      const moved: JobRowChange[] = [];
      for (const { beforeVersion, after } of byJob.values()) {
        if (beforeVersion > 0) {
          moved.push({ after, beforeVersion });
          continue;
        }
        const enqueuePosition = positions.get(positionKey(after.id, 1));
        if (enqueuePosition === undefined) throw new Error(`job ${after.id} was created without its first event`);
        created.push({ job: after, payloadJson: payloadText(after.payload), enqueuePosition });
      }
      await insertJobRows(trx, dialect, created);
      await updateJobRows(trx, dialect, moved);
      for (const { before, after, events } of changes) {
        if (!events.some((e) => e.type === "job.redriven")) continue;
        const eventPositions = events.map((_, i) => positions.get(positionKey(after.id, before.version + i + 1)) ?? -1);
        await projectRedrives(trx, after.id, events, eventPositions);
      }
    },
  };
}

/** The state a change ends in: always a job, since every job event makes one. */
function existing(state: JobStreamState): Job {
  if (state.state === "new") throw new Error(`a change of job ${state.id} ended with no events`);
  return state;
}
