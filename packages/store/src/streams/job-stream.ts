import {
  JOB_STREAM,
  canonicalJson,
  jobEvents,
  type ArchivedJob,
  type Job,
  type JobEvent,
  type JobPruned,
  type JobStreamState,
} from "@verq/core";
import type { Kysely } from "kysely";
import type { StreamProjection } from "../command-path.ts";
import type { StoreDialect } from "../dialect/store-dialect.ts";
import type { VerqDatabase } from "../schema.ts";
import { positionKey } from "../sql/events/insertEventRows.ts";
import { appendMovedJobs } from "../sql/jobs/appendMovedJobs.ts";
import { appendRetentionAudit } from "../sql/jobs/appendRetentionAudit.ts";
import { deleteJobStreams } from "../sql/jobs/deleteJobStreams.ts";
import { insertArchiveRows } from "../sql/jobs/insertArchiveRows.ts";
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
 * chained; its row is written once, from the last. A change that ends in `job.pruned`
 * (retention) archives the job and deletes its stream and row instead (its `job.pruned`,
 * appended right after the version decided on, was the version check); each batch of prunes
 * writes one `jobs.pruned` audit event first, in the same transaction. Where the engine writes
 * an append and its projection in one statement (`Statements.standaloneWrites`), jobs that only
 * move on have their events and rows written so (`appendMovedJobs`), with the same two checks.
 * `payloadText` gives a payload's canonical
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
    // Jobs that only move on (no creation, prune or redrive, which need the events' positions or
    // more than a row), where one statement may append and update: both in that one statement.
    async appendAndProject(trx, changes, events) {
      if (!dialect.statements.standaloneWrites) return false;
      const moved = new Map<string, JobRowChange>();
      for (const { before, after, events: emitted } of changes) {
        if (before.version === 0 || emitted.some((e) => e.type === "job.pruned" || e.type === "job.redriven")) return false;
        moved.set(after.id, { beforeVersion: moved.get(after.id)?.beforeVersion ?? before.version, after: existing(after) });
      }
      await appendMovedJobs(trx, dialect, events, [...moved.values()]);
      return true;
    },
    async project(trx, allChanges, positions) {
      const prunes = allChanges.filter((change) => change.events.some((e) => e.type === "job.pruned"));
      if (prunes.length > 0) await prune(trx, dialect, prunes);
      const changes = prunes.length === 0 ? allChanges : allChanges.filter((change) => !prunes.includes(change));
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

/**
 * Archives and deletes the pruned jobs: their archive rows first (the append-only trigger lets
 * only an archived job's events go), then one audit event per prune run's cutoffs, then their
 * streams and rows. The audit event is appended after the jobs' `job.pruned` events, so the
 * newest event of the log is never deleted and no position is handed out twice.
 */
async function prune(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  prunes: readonly { readonly before: JobStreamState; readonly events: readonly JobEvent[] }[],
): Promise<void> {
  const archived: ArchivedJob[] = [];
  const runs = new Map<string, { data: JobPruned["data"]; ids: string[] }>();
  for (const { before, events } of prunes) {
    const pruned = events.find((e): e is JobPruned => e.type === "job.pruned");
    if (pruned === undefined || before.state === "new") throw new Error(`a prune of job ${before.id} without job.pruned`);
    const d = pruned.data;
    archived.push({
      id: before.id,
      state: d.state as ArchivedJob["state"],
      token: d.token,
      reason: d.reason,
      enqueuedAt: before.enqueuedAt,
      finishedAt: d.finishedAt,
      prunedAt: d.at,
    });
    const key = `${d.doneCutoff}/${d.deadCutoff}/${d.at}`;
    const run = runs.get(key) ?? { data: d, ids: [] };
    run.ids.push(before.id);
    runs.set(key, run);
  }
  await insertArchiveRows(trx, dialect, archived);
  for (const { data, ids } of runs.values())
    await appendRetentionAudit(
      trx,
      dialect,
      jobEvents.jobsPruned({ ids, doneCutoff: data.doneCutoff, deadCutoff: data.deadCutoff, at: data.at }),
    );
  await deleteJobStreams(
    trx,
    prunes.map((p) => p.before.id),
  );
}

/** The state a change ends in: always a job, since every job event makes one. */
function existing(state: JobStreamState): Job {
  if (state.state === "new") throw new Error(`a change of job ${state.id} ended with no events`);
  return state;
}
