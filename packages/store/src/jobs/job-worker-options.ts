import type { FailureClassifier, FinishOutcome, JobFailure } from "@verq/core";
import type { VerqLogger } from "../verq-logger.ts";
import type { ClaimedJob } from "./claim-jobs.ts";
import type { RecordInput, Sender } from "./finish-jobs.ts";
import type { KindHandler } from "./job-kind.ts";

/** The most rounds a `JobWorker` may have under way at once (`JobWorkerOptions.rounds`). */
export const MAX_WORKER_ROUNDS = 4;

/** Settings of a `JobWorker`. */
export interface JobWorkerOptions {
  /** Who holds the leases (shown in `verq jobs show`). */
  readonly owner: string;
  /**
   * Delivers one job; only a return of exactly `true` is success (SPEC J5). Without `handlers`,
   * it gets every job, whatever its kind; with them, the jobs without a kind. A worker needs a
   * sender, handlers, or both (else `VERQ_INVALID_ARGUMENT`).
   */
  readonly sender?: Sender;
  /**
   * One handler per job kind (`kind.handler(…)`, see `defineJobKind`; a kind twice is
   * `VERQ_INVALID_ARGUMENT`): the worker claims only jobs of these kinds, and jobs without a kind
   * when it has a `sender`, and gives each job to its kind's handler. A job of a kind no handler
   * knows is never claimed by this worker: it stays pending for a worker that knows its kind.
   */
  readonly handlers?: readonly KindHandler[];
  /**
   * The sender's own rule for the errors it knows (e.g. "an `ECONNREFUSED` is retryable": the
   * request never left): `"retry"` gets a retry with backoff, `"permanent"` a dead job; any
   * error it answers `undefined` for keeps SPEC J5's rule (recorded, leased until the lease ends).
   * A kind's handler has its own (`kind.handler(handle, { classify })`).
   */
  readonly classify?: FailureClassifier;
  /** Jobs being sent at once: 1 by default. */
  readonly concurrency?: number;
  /**
   * Most jobs claimed, and most outcomes recorded, in one transaction: `concurrency` by default.
   * Jobs claimed beyond `concurrency` wait for a free slot; their leases are extended by
   * heartbeats meanwhile, like those of the jobs being sent.
   */
  readonly batchSize?: number;
  /**
   * Rounds under way at once (1 to 4), each its own transaction: 2 by default on PostgreSQL,
   * where each runs on a connection of its own and one is written while another commits; 1 on
   * SQLite, whose single writer would only queue a second. The worker holds up to
   * `rounds × batchSize` jobs; a round after the first claims only while the last claim found
   * as many jobs as it asked for.
   */
  readonly rounds?: number;
  /** Lease of each claim; the queue's default when absent. */
  readonly leaseMs?: number;
  /** The named queues it claims from (higher priority first across them): `["default"]` when absent. */
  readonly queues?: readonly string[];
  /** Pause before looking again when nothing is due: 100 ms by default. Enqueues on the same `JobQueue` wake the worker at once. */
  readonly idleMs?: number;
  /**
   * Called when a send fails in a way that is neither `Retryable` nor `Permanent` nor mapped by
   * `classify` (an unexpected error, or a `BadAck`). The failure is logged and recorded on the job
   * (`job.failed`, identifiers only); the job stays leased, without heartbeats, and is reclaimed
   * when its lease expires (SPEC J5).
   */
  readonly onSendError?: (job: ClaimedJob, error: unknown) => void;
  /** Called once per outcome, after the transaction that recorded it (or refused it as stale) has committed. Must not throw. */
  readonly onFinished?: (result: JobWorkerResult) => void;
  /**
   * Called with the outcomes a round is about to record, after their sends and right before the
   * round's transaction: the boundary between a send and its finish (crash tests stop a process
   * here). What it throws fails the round like a failed transaction.
   */
  readonly beforeRecord?: (outcomes: readonly RecordInput[]) => void;
  /**
   * Called when a heartbeat fails, and when a round's transaction fails (e.g. `VERQ_STORE_BUSY`)
   * in a started worker: that round changed nothing, its outcomes are kept and recorded by a
   * later round after `idleMs`. A failed round ends a `drain()` (it rejects with the error), and
   * a started worker without `onError` (`stop()` rejects); the jobs held then stay leased until
   * their leases expire, as after a crash.
   */
  readonly onError?: (error: unknown) => void;
  /**
   * Where the worker logs what it does, never a payload: each claim at debug (id, token, owner,
   * leaseUntil, attempt); each recorded outcome at info (id, token, outcome, accepted, sendMs,
   * durationMs from claim to record), at warn when refused as stale; each expired lease a claim
   * took over at warn; handlers that failed unexpectedly (their failure's category, class, code
   * and HTTP status, never the error's message) at error, with failed heartbeats and failed
   * rounds (their code and message). By default `stderrLogger`: warnings and errors as JSON
   * lines on stderr. `null` silences it.
   */
  readonly logger?: VerqLogger | null;
}

/**
 * What an attempt came to, as the worker records it: a finish outcome, or `failed` for a failure
 * whose effect is unknown (an unexpected error or a bad acknowledgement), recorded by
 * `job.failed` while the job stays leased until its lease expires (SPEC J5).
 */
export type WorkerOutcome = FinishOutcome | "failed";

/** What the worker did with one job's outcome. */
export interface JobWorkerResult {
  readonly id: string;
  readonly token: number;
  readonly outcome: WorkerOutcome;
  /** False when the lease had been lost and another worker holds the job now. */
  readonly accepted: boolean;
  /** The job's queue and kind (`null`: none), for metrics and logs. */
  readonly queue: string;
  readonly kind: string | null;
  /** What the attempt failed with (identifiers only); `null` for `ok`. */
  readonly failure: JobFailure | null;
  /** How long the handler ran, in ms. */
  readonly handlerMs: number;
}

/** What a worker did so far. */
export interface JobWorkerReport {
  /** Jobs claimed. */
  readonly claimed: number;
  /** Outcomes recorded, by outcome. */
  readonly ok: number;
  readonly retry: number;
  readonly permanent: number;
  /** Outcomes refused because the lease had been lost (another worker holds the job now). */
  readonly refused: number;
  /** Sends that failed unexpectedly (also counted in `errors`); their jobs stay leased until the lease expires. */
  readonly leftLeased: number;
  /** Leases extended by a heartbeat while their jobs were held. */
  readonly heartbeats: number;
  /** Handlers that failed unexpectedly, and rounds and heartbeats that failed (passed to `onError`). */
  readonly errors: number;
  /** Transactions that claimed, and that recorded outcomes (a round that did both counts in both). */
  readonly claimTransactions: number;
  readonly finishTransactions: number;
}

/** A report of nothing done yet, to count in. */
export const emptyWorkerReport = (): { -readonly [K in keyof JobWorkerReport]: number } => ({
  claimed: 0,
  ok: 0,
  retry: 0,
  permanent: 0,
  refused: 0,
  leftLeased: 0,
  heartbeats: 0,
  errors: 0,
  claimTransactions: 0,
  finishTransactions: 0,
});

/** Options of `JobWorker.drain`. */
export interface DrainOptions {
  /** Claim at most this many jobs in all, then finish them and end; no limit by default. */
  readonly limit?: number;
}

/** The key of a job a worker holds: its id and the token of its claim. */
export const heldKey = (id: string, token: number): string => `${token}:${id}`;

/** A failure's identifiers as log fields (`failure`, `errorClass`, `errorCode`, `httpStatus`); none for no failure. */
export function failureFields(failure: JobFailure | null): Record<string, unknown> {
  if (failure === null) return {};
  return { failure: failure.category, errorClass: failure.errorClass, errorCode: failure.code, httpStatus: failure.status };
}

/** An attempt's outcome waiting for its round, with what the worker reports of it. */
export type PendingRecord = RecordInput & {
  readonly queue: string;
  readonly kind: string | null;
  readonly handlerMs: number;
};
