import {
  DEAD_REASONS,
  JOB_STATES,
  JOB_STREAM,
  VerqError,
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
import { WALK_KEYS, selectJobsPage, walkOf, type JobsPageFilter } from "../sql/jobs/selectJobsPage.ts";
import { checkBatchSize, type JobContext } from "./job-context.ts";
import { decodeCursor, encodeCursor } from "./page-cursor.ts";

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

/** A page of {@link jobsPage}: its jobs and the cursor of the next page, `null` on the last one. */
export interface JobsPage {
  readonly jobs: Job[];
  readonly next: string | null;
}

const invalid = (message: string) => new VerqError("VERQ_INVALID_ARGUMENT", message);

/** `filter` with every field checked; a bad one is `VERQ_INVALID_ARGUMENT` (an id prefix as an id is checked). */
export function checkJobsPageFilter(filter: JobsPageFilter): JobsPageFilter {
  const { state, reason } = filter;
  if (state !== undefined && !(JOB_STATES as readonly unknown[]).includes(state)) {
    throw invalid(`a job state is one of ${JOB_STATES.join(", ")}`);
  }
  if (reason !== undefined) {
    if (!(DEAD_REASONS as readonly unknown[]).includes(reason))
      throw invalid(`a dead reason is one of ${DEAD_REASONS.join(", ")}`);
    if (state !== undefined && state !== "dead") throw invalid("a dead reason narrows dead jobs only");
  }
  return {
    state,
    reason,
    queue: filter.queue === undefined ? undefined : checkQueueName(filter.queue),
    kind: checkKindFilter(filter.kind),
    idPrefix:
      filter.idPrefix === undefined ? undefined : checkIdentifier(filter.idPrefix, "an id prefix", "VERQ_INVALID_ARGUMENT"),
  };
}

/**
 * One keyset page of the jobs matching `filter` (see `selectJobsPage` for each state's order and
 * index), after the page whose `next` was `after` (`null`: the first page). Bad filters, a bad
 * limit and a cursor this listing did not give are `VERQ_INVALID_ARGUMENT`.
 */
export async function jobsPage(
  context: JobContext,
  filter: JobsPageFilter,
  after: string | null,
  limit: number,
): Promise<JobsPage> {
  checkBatchSize(limit);
  const checked = checkJobsPageFilter(filter);
  const walk = walkOf(checked);
  const keys = after === null ? null : decodeCursor(after, walk, WALK_KEYS[walk]);
  const { jobs, last } = await selectJobsPage(context.store.db, context.store.dialect.statements, checked, keys, limit);
  return { jobs, next: last === null ? null : encodeCursor(walk, last) };
}
