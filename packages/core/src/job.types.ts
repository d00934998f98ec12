import type { RecordedFailure } from "./job.failure.ts";
import type { JsonValue } from "./json.ts";
import { DEFAULT_QUEUE } from "./queue.types.ts";

/** The four states of a job (SPEC J1), in lifecycle order: what stats, metrics and CLI choices list. */
export const JOB_STATES = ["pending", "leased", "done", "dead"] as const;

/** One of {@link JOB_STATES}. */
export type JobState = (typeof JOB_STATES)[number];

/**
 * Why a job is dead: a permanent failure, the attempt budget spent, the deadline reached, or an
 * operator's cancel.
 */
export type DeadReason = (typeof DEAD_REASONS)[number];

/** Every {@link DeadReason}, in a stable order (reports, metrics, CLI choices). */
export const DEAD_REASONS = ["permanent", "exhausted", "deadline", "cancelled"] as const;

/** Every {@link FinishOutcome}: what `verq jobs finish --outcome` takes. */
export const FINISH_OUTCOMES = ["ok", "retry", "permanent"] as const;

/** What a worker reports for an attempt (SPEC J4). */
export type FinishOutcome = (typeof FINISH_OUTCOMES)[number];

/**
 * A job as the projection holds it: the fold of its events. `token` is the fencing token: it
 * goes up by exactly 1 per claim and is never reset, not even by a redrive.
 */
export interface Job {
  readonly id: string;
  readonly payload: JsonValue;
  readonly state: JobState;
  /** The fencing token of the current or last claim; 0 until the first claim. */
  readonly token: number;
  /** Claims since the enqueue or the last redrive (a redrive resets it to 0, never the token). */
  readonly attempts: number;
  /** The attempt budget: once `attempts` reaches it, a retry or an expired lease makes the job `dead(exhausted)`. */
  readonly maxAttempts: number;
  /** Absolute time (ms) at or after which no retry is scheduled. */
  readonly deadline: number;
  /** A pending job may be claimed once `availableAt <= now`: set by the enqueue, a retry's backoff, or a redrive. */
  readonly availableAt: number;
  /** The worker holding the lease; set only while `leased`. */
  readonly owner: string | null;
  /** The lease is held while `now < leaseUntil` and expired from `leaseUntil` on (SPEC J3); set only while `leased`. */
  readonly leaseUntil: number | null;
  /** Why the job is dead; set exactly when `state` is `dead` (SPEC J1). */
  readonly reason: DeadReason | null;
  /** When the job last went dead; set exactly when `state` is `dead`. */
  readonly deadSince: number | null;
  /** Jobs sharing a key run one at a time in enqueue order; a dead head blocks its group only. */
  readonly orderingKey: string | null;
  /** The named queue the job belongs to (`default` unless enqueued into another). */
  readonly queue: string;
  /** Among due jobs of the queues a claim asks for, higher priority goes first, then enqueue order. */
  readonly priority: number;
  /** The job's kind (a name, like a task name) that routes it to its handler; `null` for a job enqueued without one. */
  readonly kind: string | null;
  /** What the job's last failed attempt failed with (identifiers only), or `null` if none failed; kept after a redrive. */
  readonly lastFailure: RecordedFailure | null;
  /** The trace the job was enqueued in, if any: its handling continues that trace. Absent for one enqueued outside any. */
  readonly traceContext?: TraceContext;
  /** How many times a claim took the job over from a worker whose lease had expired, over the job's whole life. */
  readonly leaseExpiries: number;
  readonly enqueuedAt: number;
  /** Time of the last event applied. */
  readonly updatedAt: number;
  /** Version of the job's event stream: the number of events applied. */
  readonly version: number;
}

/**
 * A job stream before its first event: state `new`, version 0, every other field blank (no
 * payload, token 0, attempts 0, no budget, no times). What the store hands the job machine for
 * an id it holds no job for, so that the enqueue is decided like every other command: a guarded
 * transition from `new` to `pending`. Never stored: no `jobs` row and no {@link Job} is ever `new`.
 */
export interface NewJob extends Omit<Job, "state" | "version"> {
  readonly state: "new";
  readonly version: 0;
  /** The archive row of a job once pruned under this id, or `null`: an archived id is never enqueued again. */
  readonly archived: ArchivedJob | null;
}

/**
 * What the archive keeps of a pruned job (its stream and `jobs` row are gone): enough for an old
 * id to stay recognisable. `finishedAt` is when it went done or dead, `prunedAt` when it was pruned.
 */
export interface ArchivedJob {
  readonly id: string;
  readonly state: "done" | "dead";
  readonly token: number;
  readonly reason: DeadReason | null;
  readonly enqueuedAt: number;
  readonly finishedAt: number;
  readonly prunedAt: number;
}

/** What the job machine decides from: a stream with no events yet ({@link NewJob}) or a job. */
export type JobStreamState = NewJob | Job;

/**
 * A W3C trace context as a propagator writes it (`traceparent`, and `tracestate` when the trace
 * has one): where the enqueue was in its caller's trace. Observation only: no rule reads it.
 */
export interface TraceContext {
  /** `00-<trace id, 32 hex>-<parent span id, 16 hex>-<flags, 2 hex>`. */
  readonly traceparent: string;
  readonly tracestate?: string;
}

/** The blank state of the job stream `id` (see {@link NewJob}), with the archive row of a job pruned under it, if any. */
export function newJob(id: string, archived: ArchivedJob | null = null): NewJob {
  return {
    id,
    payload: null,
    state: "new",
    token: 0,
    attempts: 0,
    maxAttempts: 0,
    deadline: 0,
    availableAt: 0,
    owner: null,
    leaseUntil: null,
    reason: null,
    deadSince: null,
    orderingKey: null,
    queue: DEFAULT_QUEUE,
    priority: 0,
    kind: null,
    lastFailure: null,
    leaseExpiries: 0,
    enqueuedAt: 0,
    updatedAt: 0,
    version: 0,
    archived,
  };
}
