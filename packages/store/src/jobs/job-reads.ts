import {
  JOB_STREAM,
  checkIdentifier,
  checkKindName,
  checkQueueName,
  unknownJobError,
  type ArchivedJob,
  type DeadReason,
  type Job,
  type JobState,
} from "@verq/core";
import type { StoredEvent } from "../sql/events/storedEvent.ts";
import { readStream } from "../sql/events/readStream.ts";
import { countDeadJobs } from "../sql/jobs/countDeadJobs.ts";
import { selectArchivedJobs } from "../sql/jobs/selectArchivedJobs.ts";
import { selectDeadPage, type DeadCursor, type DeadFilter } from "../sql/jobs/selectDeadPage.ts";
import { selectJob } from "../sql/jobs/selectJob.ts";
import { selectJobStats, type JobStats, type JobStatsFilter } from "../sql/jobs/selectJobStats.ts";
import { selectJobsByState } from "../sql/jobs/selectJobsByState.ts";
import { checkBatchSize, type JobContext } from "./job-context.ts";

// What a queue reads, never writes: each read is one query on the store's database, outside any
// transaction of the queue's, with its arguments checked first.

/**
 * A kind to filter a read by, checked: a kind's name (`checkKindName`), `null` for the jobs
 * without one, `undefined` for every job. Anything else is `VERQ_INVALID_ARGUMENT`.
 */
export function checkKindFilter(kind: unknown): string | null | undefined {
  return kind === undefined || kind === null ? kind : checkKindName(kind);
}

/** Dead-letter and lease statistics (SPEC J7), overall, per queue and per kind (`filter` narrows those to one each). */
export async function jobStats(context: JobContext, filter: JobStatsFilter): Promise<JobStats> {
  const { db, dialect } = context.store;
  return selectJobStats(db, dialect, {
    queue: filter.queue === undefined ? undefined : checkQueueName(filter.queue),
    kind: checkKindFilter(filter.kind),
  });
}

/** The job's event stream, oldest first. Throws `VERQ_UNKNOWN_JOB` for an unknown id. */
export async function jobHistory(context: JobContext, id: string): Promise<StoredEvent[]> {
  checkIdentifier(id, "a job id");
  const events = await readStream(context.store.db, JOB_STREAM, id);
  if (events.length === 0) throw unknownJobError(id);
  return events;
}

/** The job's current projection, or `null` for an unknown id. */
export async function getJob(context: JobContext, id: string): Promise<Job | null> {
  checkIdentifier(id, "a job id");
  return selectJob(context.store.db, id);
}

/** Jobs in one state (dead ones optionally of one reason, any of them optionally of one kind), oldest first (dead ones by the time they died), at most `limit`. */
export async function listJobs(
  context: JobContext,
  state: JobState,
  limit: number,
  filter: { readonly reason?: DeadReason | undefined; readonly kind?: string | null | undefined },
): Promise<Job[]> {
  return selectJobsByState(context.store.db, state, limit, { reason: filter.reason, kind: checkKindFilter(filter.kind) });
}

/** One keyset page of dead jobs matching `filter`, oldest death first, strictly after `after`. */
export async function deadPage(context: JobContext, filter: DeadFilter, after: DeadCursor | null, limit: number): Promise<Job[]> {
  checkBatchSize(limit);
  return selectDeadPage(context.store.db, { ...filter, kind: checkKindFilter(filter.kind) }, after, limit);
}

/** How many dead jobs match `filter` now. */
export async function countDead(context: JobContext, filter: DeadFilter): Promise<number> {
  return countDeadJobs(context.store.db, { ...filter, kind: checkKindFilter(filter.kind) });
}

/** The archive row of a pruned job, or `null` for an id that was never pruned. */
export async function archivedJob(context: JobContext, id: string): Promise<ArchivedJob | null> {
  checkIdentifier(id, "a job id");
  const { db, dialect } = context.store;
  return (await selectArchivedJobs(db, dialect, [id])).get(id) ?? null;
}
