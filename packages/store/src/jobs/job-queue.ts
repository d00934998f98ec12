import {
  describeFailure,
  failureCategoryOf,
  type ArchivedJob,
  type DeadReason,
  type FailureClassifier,
  type FinishOutcome,
  type Job,
  type JobState,
  type QueueSettings,
} from "@verq/core";
import type { PruneOptions, PruneResult } from "../job-retention.ts";
import { QueueLimits, type SetQueueLimitResult } from "../queue-limits.ts";
import type { StoredEvent } from "../sql/events/storedEvent.ts";
import type { DeadCursor, DeadFilter } from "../sql/jobs/selectDeadPage.ts";
import type { JobsPageFilter } from "../sql/jobs/selectJobsPage.ts";
import type { JobStats, JobStatsFilter } from "../sql/jobs/selectJobStats.ts";
import type { VerqStore } from "../store.ts";
import { claimJobs, type ClaimOptions, type ClaimedJob, type LeaseExpiry } from "./claim-jobs.ts";
import { enqueueJobs, type EnqueueInput, type EnqueueOptions, type EnqueueResult } from "./enqueue-jobs.ts";
import { EXTEND_LEASE, HELD_ROUND, PARALLEL_WRITES } from "./held-round.ts";
import {
  extendLease,
  finishAndClaim,
  finishJobs,
  heartbeatJob,
  runOnce,
  type FinishInput,
  type HeldJobs,
  type RecordInput,
  type RunOnceResult,
  type Sender,
} from "./finish-jobs.ts";
import { jobContext, type JobContext, type JobQueueOptions } from "./job-context.ts";
import { isJobKind, kindInputs, type JobKind, type KindEnqueueOptions } from "./job-kind.ts";
import {
  cancelJob,
  pruneFinishedJobs,
  redriveDead,
  redriveJob,
  type CancelResult,
  type RedriveRecord,
} from "./job-operations.ts";
import type { SeenVersion } from "../seen-version.ts";
import {
  archivedJob,
  countDead,
  deadPage,
  getJob,
  jobHistory,
  jobStats,
  jobsPage,
  listJobs,
  type JobsPage,
} from "./job-reads.ts";

/**
 * Durable jobs with leases, fencing tokens, a retry budget and a dead state (SPEC J1–J7): one
 * object for a producer, a worker, an operator and a reader of one store's jobs. Each part is
 * its own module over one shared context (enqueue, claim, finish, the operator commands, the
 * reads), and queue limits are {@link QueueLimits}; this class only hands each call to its part.
 *
 * Every change is decided by the job machine and written as events plus the `jobs` projection
 * in one transaction. Expected outcomes are return values (`finish` → `false` for a stale
 * token); bad input throws a `VerqError` with a stable code and changes nothing.
 */
export class JobQueue {
  readonly #context: JobContext;
  readonly #limits: QueueLimits;

  constructor(store: VerqStore, options: JobQueueOptions = {}) {
    this.#context = jobContext(store, options);
    this.#limits = new QueueLimits(store, { clock: this.#context.clock });
  }

  /**
   * Adds a job (SPEC J2). Enqueueing an existing id with the same payload (and queue, priority and
   * kind) is a no-op (`created: false`); with a different one it throws `VERQ_ENQUEUE_CONFLICT`.
   * With `{ trx }` the job is written inside that transaction (see {@link EnqueueOptions}).
   *
   * Of a kind (see `defineJobKind`): `enqueue(kind, payload, options)` validates `payload` with
   * the kind's schema before anything is written (`VERQ_INVALID_PAYLOAD` naming the failing
   * fields' paths) and stores the schema's output, under `options.id`, else the kind's
   * `id(payload)`, else a random UUID: only a job id makes an enqueue idempotent.
   *
   * @example
   * await queue.enqueue(sendEmail, { to: "ada@example.com" }, { id: `welcome-${userId}`, trx });
   */
  async enqueue(input: EnqueueInput, options?: EnqueueOptions): Promise<EnqueueResult>;
  async enqueue<Input, Output>(
    kind: JobKind<Input, Output>,
    payload: NoInfer<Input>,
    options?: KindEnqueueOptions,
  ): Promise<EnqueueResult>;
  async enqueue(
    first: EnqueueInput | JobKind<unknown, unknown>,
    second?: unknown,
    third?: KindEnqueueOptions,
  ): Promise<EnqueueResult> {
    const [result] = isJobKind(first)
      ? await enqueueJobs(this.#context, await kindInputs(first, [second], third ?? {}), third)
      : await enqueueJobs(this.#context, [first], second as EnqueueOptions | undefined);
    if (result === undefined) throw new Error("enqueueMany returned no result for one input");
    return result;
  }

  /**
   * Adds many jobs in one transaction: one commit, and one statement per table, however many
   * jobs. Each job follows {@link enqueue}'s rules, and results come in input order. All or
   * nothing: one invalid input or one payload conflict throws and enqueues none of them.
   * With `{ trx }` they are written inside that transaction instead of one of their own.
   * `enqueueMany(kind, payloads, options)` validates every payload first, and gives each job the
   * same options, with its id from the kind's `id(payload)` (else a random UUID).
   */
  async enqueueMany(inputs: readonly EnqueueInput[], options?: EnqueueOptions): Promise<EnqueueResult[]>;
  async enqueueMany<Input, Output>(
    kind: JobKind<Input, Output>,
    payloads: readonly NoInfer<Input>[],
    options?: Omit<KindEnqueueOptions, "id">,
  ): Promise<EnqueueResult[]>;
  async enqueueMany(
    first: readonly EnqueueInput[] | JobKind<unknown, unknown>,
    second?: unknown,
    third?: KindEnqueueOptions,
  ): Promise<EnqueueResult[]> {
    if (!isJobKind(first)) return enqueueJobs(this.#context, first, second as EnqueueOptions | undefined);
    return enqueueJobs(this.#context, await kindInputs(first, second as readonly unknown[], third ?? {}), third);
  }

  /**
   * Calls `listener` after each committed enqueue through a queue on the same store that
   * created a job, so a worker in the same process starts at once instead of at its next poll,
   * and on PostgreSQL also after every committed enqueue or redrive by any other process on the
   * database (`LISTEN`). Returns the function that unsubscribes. On SQLite, other processes'
   * enqueues are seen at the next poll.
   */
  onEnqueued(listener: () => void): () => void {
    return this.#context.store.dialect.wakeups.subscribe("jobs", listener);
  }

  /**
   * Claims one due job for `owner` (SPEC J3): pending with `availableAt <= now`, or leased with
   * `leaseUntil <= now`. The token goes up by exactly 1. Returns `null` when nothing is due.
   * A job whose expired lease was its last attempt goes `dead(exhausted)` instead of being handed out.
   */
  async claim(owner: string, options: ClaimOptions = {}): Promise<ClaimedJob | null> {
    const [job] = await claimJobs(this.#context, owner, 1, options);
    return job ?? null;
  }

  /**
   * Claims up to `max` due jobs of `options.queues` for `owner` in one transaction (expired leases
   * first, then higher priority, then enqueue order), each exactly as {@link claim} would (its
   * own token, the same lease). Returns fewer, or none, when fewer are due. A queue with a limit
   * (see {@link setQueueLimit}) gets no more leases than its free slots, counting the ones this
   * batch grants.
   */
  async claimMany(owner: string, max: number, options: ClaimOptions = {}): Promise<ClaimedJob[]> {
    return claimJobs(this.#context, owner, max, options);
  }

  /**
   * A worker's round in one transaction: records `finishes` exactly as {@link finishMany}, then
   * claims up to `max` jobs exactly as {@link claimMany}. One commit instead of two; the same
   * per-job rules. `max` 0 only records. `expired` lists the expired leases the claims found.
   */
  async finishAndClaim(
    finishes: readonly RecordInput[],
    owner: string,
    max: number,
    options: ClaimOptions = {},
  ): Promise<{ accepted: boolean[]; claimed: ClaimedJob[]; expired: LeaseExpiry[] }> {
    return finishAndClaim(this.#context, finishes, owner, max, options);
  }

  /** {@link finishAndClaim}, deciding the outcomes of `held` jobs from the states given (see `HeldJobs`). */
  async [HELD_ROUND](
    finishes: readonly RecordInput[],
    owner: string,
    max: number,
    options: ClaimOptions,
    held: HeldJobs,
  ): Promise<{ accepted: boolean[]; claimed: ClaimedJob[]; expired: LeaseExpiry[] }> {
    return finishAndClaim(this.#context, finishes, owner, max, options, held);
  }

  /** Whether this store's transactions write at the same time (see `Statements.parallelWrites`). */
  get [PARALLEL_WRITES](): boolean {
    return this.#context.store.dialect.statements.parallelWrites;
  }

  /** {@link heartbeat}, returning the job as the extension left it, or `null` when refused. */
  async [EXTEND_LEASE](id: string, token: number, leaseMs: number): Promise<ClaimedJob | null> {
    return extendLease(this.#context, id, token, leaseMs);
  }

  /**
   * Records the outcome of an attempt (SPEC J4). Accepted only when the job is leased and
   * `token` is its current token; otherwise returns `false` and changes nothing but the
   * stale-finish counter. Throws `VERQ_UNKNOWN_JOB` for an id that was never enqueued.
   */
  async finish(id: string, token: number, outcome: FinishOutcome, options: { readonly error?: unknown } = {}): Promise<boolean> {
    const failure = outcome === "ok" || !("error" in options) ? null : describeFailure(options.error, failureOfOutcome(outcome));
    const [accepted] = await finishJobs(this.#context, [{ id, token, outcome, failure }]);
    return accepted === true;
  }

  /**
   * Records a failure whose effect is unknown (SPEC J5) for the attempt that holds `token`: what
   * `error` was (its class, code and HTTP status; never its message) goes into `job.failed`, and
   * the job stays leased until its lease expires. Accepted only as {@link finish} is; returns
   * whether it was. For a caller that claims and sends by itself; `JobWorker` and
   * {@link runOnce} do it on their own.
   */
  async fail(id: string, token: number, error: unknown): Promise<boolean> {
    const failure = describeFailure(error, failureCategoryOf(error) === "bad-ack" ? "bad-ack" : "unexpected");
    const [accepted] = await finishJobs(this.#context, [{ id, token, outcome: "failed", failure }]);
    return accepted === true;
  }

  /**
   * Records many outcomes in one transaction, each exactly as {@link finish} would, in input
   * order (a second finish of the same job and token in one batch is stale). Returns, per input,
   * whether it was accepted. An unknown id or invalid input throws and records none of them.
   */
  async finishMany(finishes: readonly FinishInput[]): Promise<boolean[]> {
    return finishJobs(this.#context, finishes);
  }

  /**
   * Extends a held lease to `now + leaseMs`, only for the current token and only while the
   * lease is still held. Returns whether it was extended.
   */
  async heartbeat(id: string, token: number, leaseMs: number): Promise<boolean> {
    return heartbeatJob(this.#context, id, token, leaseMs);
  }

  /**
   * Claims one job, sends it, and finishes it (SPEC J5). Only a return of exactly `true` is
   * `ok`; a thrown `Retryable` is `retry`, a thrown `Permanent` is `permanent`, an error that
   * `options.classify` maps is what it says. Any other error, and any other return value (as
   * `BadAck`), is recorded as the job's failure (`job.failed`) and propagates, leaving the job
   * leased: a later claim recovers it after the lease expires.
   */
  async runOnce(
    owner: string,
    sender: Sender,
    options: ClaimOptions & { readonly classify?: FailureClassifier } = {},
  ): Promise<RunOnceResult> {
    return runOnce(this.#context, owner, sender, options);
  }

  /**
   * Puts a dead job back to pending with attempts 0 and a new deadline (SPEC J6), writing the
   * audit row in the same transaction. The token is kept: a late finish with an old token stays
   * invalid. `note` must be a ticket id (see `REDRIVE_NOTE_PATTERN`). The deadline defaults to
   * now plus the job's original window. Throws `VERQ_NOT_DEAD`, `VERQ_INVALID_NOTE`,
   * `VERQ_INVALID_DEADLINE`, `VERQ_UNKNOWN_JOB` or `VERQ_REDRIVE_RATE_LIMITED`, changing nothing;
   * with `expectedVersion`, `VERQ_JOB_CHANGED` when the job has moved on since (see {@link SeenVersion}).
   */
  async redrive(id: string, options: { note: string; deadline?: number } & SeenVersion): Promise<RedriveRecord> {
    return redriveJob(this.#context, id, options);
  }

  /**
   * Cancels a pending or leased job: it goes dead with reason `cancelled`, with `note` (a ticket
   * id, see `REDRIVE_NOTE_PATTERN`) and the time in its `job.cancelled` event. A pending job is
   * never claimed again; a leased job's holder gets `false` from its next `heartbeat` and from
   * its `finish`, since the job is no longer leased (the token is kept, so a refused finish counts
   * in `staleFinishesRefused` like any other). A job that already ended (done or dead) is
   * refused as `not-cancellable`, changing nothing. Throws `VERQ_UNKNOWN_JOB` for an id never
   * enqueued and `VERQ_INVALID_NOTE` for a note that is not a ticket id, changing nothing;
   * with `expectedVersion`, `VERQ_JOB_CHANGED` when the job has moved on since (see {@link SeenVersion}).
   * A cancelled job can be redriven by id like any dead job; a bulk redrive passes it over
   * unless asked for reason `cancelled`.
   */
  async cancel(id: string, options: { note: string } & SeenVersion): Promise<CancelResult> {
    return cancelJob(this.#context, id, options);
  }

  /**
   * Redrives dead jobs (optionally of one reason), oldest first, as far as the rate limit
   * allows, each with the same note. What the limit holds back is reported as `deferred`, never
   * dropped: call again after the window. Cancelled jobs are taken only when `reason` is
   * `cancelled`: an operator's cancel is not undone by a sweep.
   */
  async redriveDead(options: { note: string; reason?: DeadReason; max?: number; deadline?: number }): Promise<{
    redriven: RedriveRecord[];
    deferred: number;
  }> {
    return redriveDead(this.#context, options);
  }

  /**
   * One page of dead jobs matching `filter` (a reason, dead at or before a time), oldest death
   * first, strictly after `after` (the last job of the previous page): a bulk operation walks
   * every page without skipping or repeating a job while others leave the dead state.
   */
  async deadPage(filter: DeadFilter, after: DeadCursor | null, limit: number): Promise<Job[]> {
    return deadPage(this.#context, filter, after, limit);
  }

  /** How many dead jobs match `filter` now. */
  async countDead(filter: DeadFilter = {}): Promise<number> {
    return countDead(this.#context, filter);
  }

  /**
   * Retention: removes done jobs finished at least `doneOlderThan` ms ago (and dead ones dead at
   * least `deadOlderThan` ms ago, when given) with their event streams, in batches of
   * `batchSize`, each its own transaction. Each job is decided by the job machine, which never
   * prunes a pending or leased job; each pruned job keeps a row in the archive (see
   * {@link archived}), so an enqueue of its id throws `VERQ_JOB_ARCHIVED`, and each batch
   * writes a `jobs.pruned` audit event (stream `job-retention/prunes`). `redrives` audit rows
   * are kept. The newest event of the log is never deleted, so positions never go backwards.
   * With `dryRun`, counts and writes nothing.
   *
   * @example
   * const day = 86_400_000;
   * const result = await queue.prune({ doneOlderThan: 7 * day, deadOlderThan: 30 * day });
   * console.log(result.pruned.done, result.kept.pending);
   */
  async prune(options: PruneOptions): Promise<PruneResult> {
    return pruneFinishedJobs(this.#context, options);
  }

  /** The archive row of a pruned job, or `null` for an id that was never pruned. */
  async archived(id: string): Promise<ArchivedJob | null> {
    return archivedJob(this.#context, id);
  }

  /**
   * Dead-letter and lease statistics (SPEC J7), overall, per queue (`queues`: every queue that
   * has jobs or a limit; with `options.queue`, that queue only, zeros if it has neither), per kind
   * (`kinds`: every kind with jobs, kindless jobs under `JOB_STATS_NONE`; with `options.kind`,
   * that one only, `null` for the kindless jobs) and per queue and kind (`groups`, within both).
   * Throws `VERQ_INVALID_ARGUMENT` for a queue or kind that is not a name, reading nothing.
   */
  async stats(options: JobStatsFilter = {}): Promise<JobStats> {
    return jobStats(this.#context, options ?? {});
  }

  /**
   * Sets the global concurrency limit of `queue` (see {@link QueueLimits.setQueueLimit}): from
   * now on a claim never leases one of its jobs while `maxLeased` of them are leased, store-wide.
   * `null` removes the limit; the limit it already has changes nothing (`changed: false`).
   *
   * @example
   * await queue.setQueueLimit("emails", { maxLeased: 5 }); // at most 5 emails in flight, store-wide
   */
  async setQueueLimit(queue: string, options: { maxLeased: number | null }): Promise<SetQueueLimitResult> {
    return this.#limits.setQueueLimit(queue, options);
  }

  /** The settings of `queue` (unlimited, version 0 when no limit was ever set). */
  async queueSettings(queue: string): Promise<QueueSettings> {
    return this.#limits.queueSettings(queue);
  }

  /** The job's event stream, oldest first. Throws `VERQ_UNKNOWN_JOB` for an unknown id. */
  async history(id: string): Promise<StoredEvent[]> {
    return jobHistory(this.#context, id);
  }

  /** The job's current projection, or `null` for an unknown id. */
  async get(id: string): Promise<Job | null> {
    return getJob(this.#context, id);
  }

  /**
   * Jobs in one state, oldest first (dead ones by the time they died), at most `limit`; dead
   * ones of `reason` only, and with `kind`, jobs of that kind only (`null`: the jobs without one).
   * A kind that is not a kind's name throws `VERQ_INVALID_ARGUMENT`.
   */
  async list(state: JobState, options: { limit?: number; reason?: DeadReason; kind?: string | null } = {}): Promise<Job[]> {
    return listJobs(this.#context, state, options.limit ?? 100, options);
  }

  /**
   * One keyset page of the jobs matching `filter` (state, queue, kind, dead reason, id prefix),
   * after the page whose `next` cursor is `after`; each state in the order of its own index
   * (pending in claim order, leased by lease end, done and dead latest first), by id without one.
   */
  async page(filter: JobsPageFilter, after: string | null, limit: number): Promise<JobsPage> {
    return jobsPage(this.#context, filter, after, limit);
  }
}

/** The failure category a finish with `outcome` (not `ok`) records for the error it names. */
const failureOfOutcome = (outcome: "retry" | "permanent"): "retryable" | "permanent" =>
  outcome === "retry" ? "retryable" : "permanent";
