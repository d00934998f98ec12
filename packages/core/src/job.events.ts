import type { JobFailure } from "./job.failure.ts";
import type { JsonValue } from "./json.ts";
import type { DeadReason, JobState, TraceContext } from "./job.types.ts";

/** The stream type under which job events are stored. */
export const JOB_STREAM = "job";

/**
 * A new job (SPEC J2): the machine's enqueue from `new` (a stream with no events), the stream's
 * first event (version 1); `evolveJob(newJob(id), enqueued)` creates the job from it. An
 * enqueue of an existing id writes nothing. `id` and `payload` are never changed by any later
 * event (SPEC J1).
 */
export interface JobEnqueued {
  readonly type: "job.enqueued";
  readonly data: {
    readonly id: string;
    readonly payload: JsonValue;
    readonly maxAttempts: number;
    /** Absolute time (ms) at or after which no retry is scheduled. */
    readonly deadline: number;
    /** The first time the job may be claimed. */
    readonly availableAt: number;
    readonly orderingKey: string | null;
    /** The job's queue; absent in events written before queues existed, which means `default`. */
    readonly queue?: string;
    /** The job's priority; absent in events written before priorities existed, which means 0. */
    readonly priority?: number;
    /** The job's kind; absent for a job enqueued without one. */
    readonly kind?: string;
    /** The trace the job was enqueued in; absent for a job enqueued outside any. */
    readonly traceContext?: TraceContext;
    readonly at: number;
  };
}
/**
 * A claim (SPEC J3): pending and due → leased, or leased with an expired lease → leased again,
 * right after a {@link JobLeaseExpired} in the same decision. It counts one attempt.
 */
export interface JobClaimed {
  readonly type: "job.claimed";
  readonly data: {
    /** The new fencing token: the job's previous token plus exactly 1. */
    readonly token: number;
    readonly owner: string;
    /** `at + leaseMs`: the first instant at which the lease is expired. */
    readonly leaseUntil: number;
    readonly at: number;
  };
}
/**
 * A lease taken away from its holder: written only by a claim at or after `leaseUntil`, just
 * before that claim's {@link JobClaimed}, or before a {@link JobDied} (`exhausted`) when the
 * lost attempt was the last of the budget. `token` and `owner` are those of the lost lease.
 */
export interface JobLeaseExpired {
  readonly type: "job.leaseExpired";
  readonly data: { readonly token: number; readonly owner: string | null; readonly at: number };
}
/**
 * A heartbeat: the holder of the current token moved `leaseUntil` to `at + leaseMs` while its
 * lease was still held. The state, token and attempts do not change.
 */
export interface JobLeaseExtended {
  readonly type: "job.leaseExtended";
  readonly data: { readonly token: number; readonly leaseUntil: number; readonly at: number };
}
/** A finish `ok` with the current token (SPEC J4): leased → done, for good. */
export interface JobCompleted {
  readonly type: "job.completed";
  readonly data: { readonly token: number; readonly at: number };
}
/**
 * A finish `retry` with the current token, with attempts left and the next run before the
 * deadline (SPEC J4): leased → pending. `availableAt` is `at` plus the backoff delay.
 */
export interface JobRetryScheduled {
  readonly type: "job.retryScheduled";
  readonly data: {
    readonly token: number;
    readonly availableAt: number;
    /** What the attempt failed with; absent in events written before failures were recorded. */
    readonly failure?: JobFailure;
    readonly attempt?: number;
    readonly at: number;
  };
}

/**
 * A failure reported by the holder of the current token whose effect is unknown (SPEC J5): the
 * handler threw something that is neither `Retryable` nor `Permanent` nor mapped by its
 * classifier, or returned something other than `true`. Leased → leased: the job keeps its lease,
 * token and attempts, and is claimed again only once the lease expires. `failure` holds
 * identifiers only (class, code, HTTP status), never the error's text.
 */
export interface JobFailed {
  readonly type: "job.failed";
  readonly data: { readonly token: number; readonly attempt: number; readonly failure: JobFailure; readonly at: number };
}
/**
 * Leased → dead (SPEC J1, J4): a finish `permanent` (`permanent`); a finish `retry` with the
 * budget spent (`exhausted`, checked first) or with the next run at or past the deadline
 * (`deadline`); or a claim over the expired lease of the last attempt (`exhausted`). `token`
 * is the job's current token.
 */
export interface JobDied {
  readonly type: "job.died";
  readonly data: {
    readonly token: number;
    readonly reason: DeadReason;
    /** What the last attempt failed with, when a finish reported it (`permanent`, or a retry past the budget). */
    readonly failure?: JobFailure;
    readonly attempt?: number;
    readonly at: number;
  };
}
/**
 * An operator's redrive of a dead job (SPEC J6): dead → pending, due at once, attempts 0, the
 * new `deadline`. The token is not reset: `previousToken` is the token the job keeps, so a
 * late finish of the old work stays stale. `note` is a ticket id (see `REDRIVE_NOTE_PATTERN`).
 * The store writes its `redrives` audit row in the same transaction.
 */
export interface JobRedriven {
  readonly type: "job.redriven";
  readonly data: { readonly previousToken: number; readonly note: string; readonly deadline: number; readonly at: number };
}

/**
 * The prune decision for one finished job (retention). It is appended with the version check
 * (nobody moved the job since it was decided on) and deleted with the rest of the stream in the
 * same transaction, so it is never seen stored; the store keeps a `job_archive` row and writes a
 * {@link JobsPruned} audit event instead. `state`, `token`, `reason` and `finishedAt` are the
 * job's as it was pruned.
 */
export interface JobPruned {
  readonly type: "job.pruned";
  readonly data: {
    /** `done` or `dead`: the machine prunes no other state. */
    readonly state: JobState;
    readonly token: number;
    readonly reason: DeadReason | null;
    readonly finishedAt: number;
    readonly doneCutoff: number;
    readonly deadCutoff: number | null;
    readonly at: number;
  };
}

/**
 * An operator's cancel of a pending or leased job: → dead with reason `cancelled`, `deadSince`
 * `at`. The token is not changed: `previousToken` is the token the job keeps (that of the lease
 * taken away, if it was leased), so the holder's late heartbeat or finish is refused. `note` is
 * a ticket id (see `REDRIVE_NOTE_PATTERN`).
 */
export interface JobCancelled {
  readonly type: "job.cancelled";
  readonly data: { readonly previousToken: number; readonly note: string; readonly at: number };
}

/** Every fact recorded about a job. Names are namespaced `job.*` strings. */
export type JobEvent =
  | JobEnqueued
  | JobClaimed
  | JobLeaseExpired
  | JobLeaseExtended
  | JobCompleted
  | JobRetryScheduled
  | JobFailed
  | JobDied
  | JobRedriven
  | JobPruned
  | JobCancelled;

/** The `type` of a {@link JobEvent}; all but `job.pruned` (never stored) may appear in a job's stream. */
export type JobEventType = JobEvent["type"];

/** The stream type of the jobs' retention audit trail (prunes); never pruned itself. */
export const JOB_RETENTION_STREAM = "job-retention";

/** The one stream id of {@link JOB_RETENTION_STREAM}. */
export const JOB_RETENTION_ID = "prunes";

/**
 * The audit record of one prune batch (stream `job-retention/prunes`): which jobs were removed
 * with their streams, under which cutoffs. Appended before the streams are deleted, in the same
 * transaction, so the newest event of the log is never one that is deleted.
 */
export interface JobsPruned {
  readonly type: "jobs.pruned";
  readonly data: {
    readonly ids: readonly string[];
    readonly doneCutoff: number;
    readonly deadCutoff: number | null;
    readonly at: number;
  };
}

/** Typed creators: the only place event type strings are spelled. */
export const jobEvents = {
  enqueued: (data: JobEnqueued["data"]): JobEnqueued => ({ type: "job.enqueued", data }),
  claimed: (data: JobClaimed["data"]): JobClaimed => ({ type: "job.claimed", data }),
  leaseExpired: (data: JobLeaseExpired["data"]): JobLeaseExpired => ({ type: "job.leaseExpired", data }),
  leaseExtended: (data: JobLeaseExtended["data"]): JobLeaseExtended => ({ type: "job.leaseExtended", data }),
  completed: (data: JobCompleted["data"]): JobCompleted => ({ type: "job.completed", data }),
  retryScheduled: (data: JobRetryScheduled["data"]): JobRetryScheduled => ({ type: "job.retryScheduled", data }),
  failed: (data: JobFailed["data"]): JobFailed => ({ type: "job.failed", data }),
  died: (data: JobDied["data"]): JobDied => ({ type: "job.died", data }),
  redriven: (data: JobRedriven["data"]): JobRedriven => ({ type: "job.redriven", data }),
  pruned: (data: JobPruned["data"]): JobPruned => ({ type: "job.pruned", data }),
  jobsPruned: (data: JobsPruned["data"]): JobsPruned => ({ type: "jobs.pruned", data }),
  cancelled: (data: JobCancelled["data"]): JobCancelled => ({ type: "job.cancelled", data }),
} as const;

/** All job event type names a job's stream may hold (not `job.pruned`), for validation of stored rows. */
export const JOB_EVENT_TYPES: readonly JobEventType[] = [
  "job.enqueued",
  "job.claimed",
  "job.leaseExpired",
  "job.leaseExtended",
  "job.completed",
  "job.retryScheduled",
  "job.failed",
  "job.died",
  "job.redriven",
  "job.cancelled",
];
