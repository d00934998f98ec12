import type { JobEvent } from "./job.events.ts";
import type { JobFailure, RecordedFailure } from "./job.failure.ts";
import { newJob, type Job, type JobStreamState } from "./job.types.ts";
import { DEFAULT_QUEUE } from "./queue.types.ts";

/**
 * Folds one event into a job. Pure. `job.enqueued` applies only to the blank {@link newJob}
 * (version 0) and creates the job; every other event needs the job it applies to, and both
 * mistakes throw (such a stream is corrupt). Each event adds 1 to `version` and sets
 * `updatedAt` to its `at`. The projection is, by definition, the fold of the stream:
 * `events.reduce(evolveJob, newJob(id))`.
 */
export function evolveJob(job: JobStreamState, event: JobEvent): Job {
  if (event.type === "job.enqueued") {
    if (job.state !== "new") throw new Error(`job ${job.id} is already enqueued`);
    const d = event.data;
    return {
      id: d.id,
      payload: d.payload,
      state: "pending",
      token: 0,
      attempts: 0,
      maxAttempts: d.maxAttempts,
      deadline: d.deadline,
      availableAt: d.availableAt,
      owner: null,
      leaseUntil: null,
      reason: null,
      deadSince: null,
      orderingKey: d.orderingKey,
      queue: d.queue ?? DEFAULT_QUEUE,
      priority: d.priority ?? 0,
      kind: d.kind ?? null,
      lastFailure: null,
      leaseExpiries: 0,
      enqueuedAt: d.at,
      updatedAt: d.at,
      version: 1,
      ...(d.traceContext === undefined ? {} : { traceContext: d.traceContext }),
    };
  }
  if (job.state === "new") throw new Error(`${event.type} before job.enqueued`);
  const base = { ...job, updatedAt: event.data.at, version: job.version + 1 };
  switch (event.type) {
    case "job.claimed":
      return {
        ...base,
        state: "leased",
        token: event.data.token,
        attempts: job.attempts + 1,
        owner: event.data.owner,
        leaseUntil: event.data.leaseUntil,
      };
    case "job.leaseExpired":
      return { ...base, state: "pending", owner: null, leaseUntil: null, leaseExpiries: job.leaseExpiries + 1 };
    case "job.leaseExtended":
      return { ...base, leaseUntil: event.data.leaseUntil };
    case "job.completed":
      return { ...base, state: "done", owner: null, leaseUntil: null };
    case "job.retryScheduled":
      return {
        ...base,
        state: "pending",
        owner: null,
        leaseUntil: null,
        availableAt: event.data.availableAt,
        lastFailure: recorded(job, event.data),
      };
    case "job.failed":
      return { ...base, lastFailure: recorded(job, event.data) };
    case "job.died":
      return {
        ...base,
        state: "dead",
        owner: null,
        leaseUntil: null,
        reason: event.data.reason,
        deadSince: event.data.at,
        lastFailure: recorded(job, event.data),
      };
    case "job.redriven":
      return {
        ...base,
        state: "pending",
        attempts: 0,
        deadline: event.data.deadline,
        availableAt: event.data.at,
        reason: null,
        deadSince: null,
      };
    case "job.pruned":
      // Never stored in the stream: the job and its events are deleted together.
      return base;
    case "job.cancelled":
      return { ...base, state: "dead", owner: null, leaseUntil: null, reason: "cancelled", deadSince: event.data.at };
  }
}

/** The job's last failure after an event that may carry one: the event's, else the one it had. */
function recorded(
  job: Job,
  data: { readonly failure?: JobFailure; readonly attempt?: number; readonly token: number; readonly at: number },
): RecordedFailure | null {
  if (data.failure === undefined) return job.lastFailure;
  return { ...data.failure, attempt: data.attempt ?? job.attempts, token: data.token, at: data.at };
}

/** The fold of a whole stream, in version order; `null` for an empty one. Throws as {@link evolveJob} does. */
export function foldJob(events: readonly JobEvent[]): Job | null {
  const [first, ...rest] = events;
  if (first === undefined) return null;
  if (first.type !== "job.enqueued") throw new Error(`${first.type} before job.enqueued`);
  let job = evolveJob(newJob(first.data.id), first);
  for (const event of rest) job = evolveJob(job, event);
  return job;
}
