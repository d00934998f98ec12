import type { JobFailure } from "./job.failure.ts";
import type { JsonValue } from "./json.ts";
import type { FinishOutcome, TraceContext } from "./job.types.ts";
import type { QueueLoad } from "./queue.types.ts";

/**
 * Create the job of a stream that has no events yet (SPEC J2): accepted only from `new` (the
 * blank state at version 0), where it makes the job pending with these facts, under the
 * stream's id. An existing job refuses it: as `already-enqueued` when `payload` is the job's
 * payload in canonical JSON (keys in any order) in the same queue with the same priority (the
 * caller's no-op), as `payload-conflict` otherwise. The other fields of a repeated enqueue do
 * not matter.
 */
export interface EnqueueCommand {
  readonly type: "job.enqueue";
  readonly payload: JsonValue;
  readonly maxAttempts: number;
  /** Absolute time (ms) at or after which no retry is scheduled. */
  readonly deadline: number;
  /** The first time the job may be claimed. */
  readonly availableAt: number;
  readonly orderingKey: string | null;
  /** The job's named queue; `default` when absent (see `checkQueueName`). */
  readonly queue?: string;
  /** Higher is claimed first among due jobs; 0 when absent (see `checkPriority`). */
  readonly priority?: number;
  /** The job's kind, which routes it to its handler; none when absent (see `checkKindName`). */
  readonly kind?: string;
  /** The trace the enqueue ran in, stored with the job; a repeated enqueue's does not matter. */
  readonly traceContext?: TraceContext;
  readonly now: number;
}

/**
 * The kinds a claimer has handlers for: jobs of the kinds `names`, and jobs without a kind when
 * `kindless`. A job of another kind is refused as `kind-not-handled` and stays where it is for a
 * claimer that handles it.
 */
export interface HandledKinds {
  readonly names: readonly string[];
  readonly kindless: boolean;
}

/**
 * Claim a job for `owner` for `leaseMs` (SPEC J3). Accepted for a pending job with
 * `availableAt <= now`, or a leased one whose lease expired (`now >= leaseUntil`); the token
 * goes up by exactly 1. Refused as `not-due`, `lease-held` or `not-claimable` (done, dead).
 * A pending job of a queue whose `queueLoad` is at its limit is refused as `queue-full`; the
 * take-over of an expired lease is not, since the queue's leased count stays the same.
 * Like every command, it carries `now`, because time is an input.
 */
export interface ClaimCommand {
  readonly type: "job.claim";
  readonly owner: string;
  readonly leaseMs: number;
  /** The job's queue as the caller read it in the claim's transaction; absent: no limit. */
  readonly queueLoad?: QueueLoad;
  /** The kinds the claimer handles; absent: every job, whatever its kind. */
  readonly kinds?: HandledKinds;
  readonly now: number;
}
/**
 * Report the outcome of the attempt that holds `token` (SPEC J4). Accepted only while the job
 * is leased and `token` is its current token, even after the lease expired as long as nobody
 * claimed it since; otherwise refused (`stale-token`, `not-leased`) and nothing changes.
 */
export interface FinishCommand {
  readonly type: "job.finish";
  readonly token: number;
  readonly outcome: FinishOutcome;
  /** Backoff before the next attempt, drawn by the caller's policy and RNG; used only for `retry`. */
  readonly retryDelayMs: number;
  /** What the attempt failed with, for `retry` and `permanent`: recorded on the event the finish appends. */
  readonly failure?: JobFailure;
  readonly now: number;
}

/**
 * Report a failure of the attempt that holds `token` whose effect is unknown (SPEC J5): an
 * unexpected error or a bad acknowledgement. Accepted only while the job is leased and `token`
 * is its current token (as a finish); the job stays leased with the same token, lease and
 * attempts, and `job.failed` records `failure`. Refused as `stale-token`, `not-leased` or
 * `unknown-job`, changing nothing.
 */
export interface FailCommand {
  readonly type: "job.fail";
  readonly token: number;
  readonly failure: JobFailure;
  readonly now: number;
}
/**
 * Extend the lease held with `token` to `now + leaseMs`. Accepted only for the current token
 * while the lease is still held (`now < leaseUntil`): a lease that expired may already belong
 * to the next claimer, so it is refused as `lease-expired` rather than revived. Another token
 * is refused as `stale-token`, a job that is not leased as `not-leased`.
 */
export interface HeartbeatCommand {
  readonly type: "job.heartbeat";
  readonly token: number;
  readonly leaseMs: number;
  readonly now: number;
}
/**
 * Put a dead job back to pending (SPEC J6). Accepted only for a dead job (`not-dead`
 * otherwise), with a `note` that is a ticket id (`invalid-note`), a deadline later than `now`
 * (`invalid-deadline`), and fewer than `limit.max` redrives in the rate limit's window
 * (`rate-limited`, SPEC J7: recovery must not re-create the overload), checked in that order.
 * Attempts go back to 0; the token does not. The facts come from the caller: the count of
 * recent redrives (read in the same transaction) and the job's original window.
 */
export interface RedriveCommand {
  readonly type: "job.redrive";
  /** The operator's ticket id; see `REDRIVE_NOTE_PATTERN`. */
  readonly note: string;
  /** The new absolute deadline (ms) for the redriven work; `null`: `now + originalWindowMs`. */
  readonly deadline: number | null;
  /** Redrives recorded in the rate limit's window up to `now`. */
  readonly recentRedrives: number;
  /** The rate limit: at most `max` redrives in any `windowMs`. */
  readonly limit: { readonly max: number; readonly windowMs: number };
  /** The job's deadline window at its enqueue (`deadline - at` of its `job.enqueued`), the default's length. */
  readonly originalWindowMs: number;
  readonly now: number;
}

/**
 * Remove a finished job and its stream (retention). Accepted only for a done job that finished
 * at or before `doneCutoff` (`updatedAt <= doneCutoff`), or a dead one that died at or before
 * `deadCutoff` when that is given; refused as `not-finished` (pending, leased: never pruned),
 * `too-recent` (finished after the cutoff), `dead-kept` (dead, and no dead cutoff) or
 * `unknown-job`. The cutoffs are absolute times (ms): `now` minus the retention.
 */
export interface PruneCommand {
  readonly type: "job.prune";
  readonly doneCutoff: number;
  /** `null`: dead jobs are kept. */
  readonly deadCutoff: number | null;
  readonly now: number;
}

/**
 * Cancel a job that has not finished: accepted for a pending or leased job, with a `note` that
 * is a ticket id (`invalid-note` otherwise, the redrive note rule); refused as `unknown-job` for
 * a stream with no job and `not-cancellable` for a done or dead one. The job goes dead with
 * reason `cancelled` and keeps its token, so the holder of a lease it had gets `false` from its
 * next heartbeat and finish: the job is no longer leased.
 */
export interface CancelCommand {
  readonly type: "job.cancel";
  /** The operator's ticket id; see `REDRIVE_NOTE_PATTERN`. */
  readonly note: string;
  readonly now: number;
}

/** Everything a caller may ask of a job; each is decided by `jobMachine` through a `JobDecider`. */
export type JobCommand =
  EnqueueCommand | ClaimCommand | FinishCommand | FailCommand | HeartbeatCommand | RedriveCommand | PruneCommand | CancelCommand;

/** Typed creators: the only place command type strings are spelled. */
export const jobCommands = {
  enqueue: (c: Omit<EnqueueCommand, "type">): EnqueueCommand => ({ type: "job.enqueue", ...c }),
  claim: (c: Omit<ClaimCommand, "type">): ClaimCommand => ({ type: "job.claim", ...c }),
  finish: (c: Omit<FinishCommand, "type">): FinishCommand => ({ type: "job.finish", ...c }),
  fail: (c: Omit<FailCommand, "type">): FailCommand => ({ type: "job.fail", ...c }),
  heartbeat: (c: Omit<HeartbeatCommand, "type">): HeartbeatCommand => ({ type: "job.heartbeat", ...c }),
  redrive: (c: Omit<RedriveCommand, "type">): RedriveCommand => ({ type: "job.redrive", ...c }),
  prune: (c: Omit<PruneCommand, "type">): PruneCommand => ({ type: "job.prune", ...c }),
  cancel: (c: Omit<CancelCommand, "type">): CancelCommand => ({ type: "job.cancel", ...c }),
} as const;
