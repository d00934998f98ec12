import {
  BadAck,
  JOB_STREAM,
  VerqError,
  backoffDelay,
  canonicalJson,
  checkFutureTime,
  checkIdentifier,
  checkLeaseMs,
  checkMaxAttempts,
  checkOutcome,
  checkTime,
  checkToken,
  decideJob,
  defaultBackoff,
  evolveJob,
  isVerqError,
  jobCommands,
  jobEvents,
  systemClock,
  type BackoffPolicy,
  type Clock,
  type DeadReason,
  type FinishOutcome,
  type Job,
  type JobDecider,
  type JobEnqueued,
  type JobRefusal,
  type JobState,
  type Rng,
} from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "./schema.ts";
import type { VerqStore } from "./store.ts";
import { seamsOf, type JobQueueSeams } from "./seams.ts";
import { commitJobChanges, type JobChange } from "./sql/jobs/commitJobChanges.ts";
import { insertEventRows, positionKey, type EventRow } from "./sql/events/insertEventRows.ts";
import { bumpCounter } from "./sql/counters.ts";
import { countRedrivesSince } from "./sql/jobs/countRedrivesSince.ts";
import { readStream } from "./sql/events/readStream.ts";
import type { StoredEvent } from "./sql/events/storedEvent.ts";
import { selectClaimCandidates } from "./sql/jobs/selectClaimCandidates.ts";
import { selectJob } from "./sql/jobs/selectJob.ts";
import { selectJobStats, type JobStats } from "./sql/jobs/selectJobStats.ts";
import { selectJobsByState } from "./sql/jobs/selectJobsByState.ts";
import { selectJobsById } from "./sql/jobs/selectJobsById.ts";
import { insertJobRows, type NewJobRow } from "./sql/jobs/insertJobRows.ts";

/** How many redrives may happen in a sliding window (SPEC J7: recovery must not re-create the overload). */
export interface RedriveLimit {
  readonly max: number;
  readonly windowMs: number;
}

/** Settings of a queue. Every one has a default. */
export interface JobQueueOptions {
  readonly clock?: Clock;
  /** Jitter source for backoff; `Math.random` by default. */
  readonly rng?: Rng;
  readonly backoff?: BackoffPolicy;
  /** Lease of a claim when the caller names none: 30 s. */
  readonly defaultLeaseMs?: number;
  /** Attempt budget when enqueue names none: 5. */
  readonly defaultMaxAttempts?: number;
  /** Deadline when enqueue names none, relative to enqueue time: 24 h. */
  readonly defaultDeadlineMs?: number;
  /** Redrives allowed per window: 50 per minute by default. */
  readonly redriveLimit?: RedriveLimit;
}

/** What to enqueue. `deadline` is absolute (ms since the epoch). */
export interface EnqueueInput {
  readonly id: string;
  readonly payload: unknown;
  readonly maxAttempts?: number;
  readonly deadline?: number;
  /** Earliest time the job may be claimed; now by default. */
  readonly availableAt?: number;
  /** Jobs with one key run one at a time in enqueue order (SPEC J10). */
  readonly orderingKey?: string;
}

/**
 * Where an enqueue is written. By default each `enqueue`/`enqueueMany` is its own transaction.
 * With `trx`, a transaction the service opened on this store's database (from
 * {@link VerqStore.transaction} or `store.db.transaction()`), the job's event and row are written
 * in it, beside the service's own rows: both commit or neither does (the transactional outbox,
 * SPEC P2). Enqueue errors are thrown inside that transaction, so the service's rows roll back
 * with them unless it catches the error. Calling `enqueue` without `trx` inside a transaction of
 * the same store would wait for that transaction for ever: pass it.
 *
 * @example
 * await store.transaction(async (trx) => {
 *   await trx.withTables<{ orders: OrderRow }>().insertInto("orders").values(order).execute();
 *   await queue.enqueue({ id: `charge-${order.id}`, payload: { orderId: order.id } }, { trx });
 * });
 */
export interface EnqueueOptions {
  // Any table types: the service's transaction also sees its own tables.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly trx?: Kysely<any>;
}

/** `created: false` means the same id with the same payload was already there: a no-op. */
export interface EnqueueResult {
  readonly created: boolean;
  readonly job: Job;
}

/** A claimed job: leased to the caller, with the fencing token it must present to finish. */
export type ClaimedJob = Job & { readonly state: "leased"; readonly owner: string; readonly leaseUntil: number };

/** Delivers a job downstream. Only a return of exactly `true` is success (SPEC J5). */
export type Sender = (job: ClaimedJob) => unknown;

/** What one `runOnce` did. */
export type RunOnceResult =
  | { readonly status: "idle" }
  | {
      readonly status: "finished";
      readonly id: string;
      readonly token: number;
      readonly outcome: FinishOutcome;
      /** False when the lease was lost while the sender ran and another worker took over. */
      readonly accepted: boolean;
    };

/** One outcome for {@link JobQueue.finishMany}. */
export interface FinishInput {
  readonly id: string;
  readonly token: number;
  readonly outcome: FinishOutcome;
}

/** The most jobs one `claimMany` may take: bounds one transaction's size and lock time. */
export const MAX_BATCH_SIZE = 1_000;

function checkBatchSize(max: number): number {
  if (!Number.isSafeInteger(max) || max < 1 || max > MAX_BATCH_SIZE) {
    throw new VerqError("VERQ_INVALID_ARGUMENT", `a batch size must be a whole number from 1 to ${MAX_BATCH_SIZE}`);
  }
  return max;
}

/** The audit record of one redrive. */
export interface RedriveRecord {
  readonly jobId: string;
  readonly previousToken: number;
  readonly at: number;
  readonly note: string;
  readonly deadline: number;
}

const REFUSAL_ERRORS: Partial<Record<JobRefusal, { code: VerqError["code"]; message: string }>> = {
  "not-dead": { code: "VERQ_NOT_DEAD", message: "only a dead job can be redriven; this one is" },
  "invalid-note": {
    code: "VERQ_INVALID_NOTE",
    message: "the redrive note must be a ticket id: 1-64 ASCII letters, digits or . _ - : # /, starting with a letter or digit",
  },
  "invalid-deadline": { code: "VERQ_INVALID_DEADLINE", message: "the new deadline must be later than now" },
};

/**
 * Durable jobs with leases, fencing tokens, a retry budget and a dead state (SPEC J1–J7).
 *
 * Every change is decided by the job machine and written as events plus the `jobs` projection
 * in one transaction. Expected outcomes are return values (`finish` → `false` for a stale
 * token); bad input throws a {@link VerqError} with a stable code and changes nothing.
 */
export class JobQueue {
  readonly #store: VerqStore;
  readonly #clock: Clock;
  readonly #rng: Rng;
  readonly #backoff: BackoffPolicy;
  readonly #defaultLeaseMs: number;
  readonly #defaultMaxAttempts: number;
  readonly #defaultDeadlineMs: number;
  readonly #redriveLimit: RedriveLimit;
  readonly #decide: JobDecider;
  readonly #enqueueListeners = new Set<() => void>();

  constructor(store: VerqStore, options: JobQueueOptions = {}) {
    this.#store = store;
    this.#clock = options.clock ?? systemClock;
    this.#rng = options.rng ?? Math.random;
    this.#backoff = options.backoff ?? defaultBackoff;
    this.#defaultLeaseMs = checkLeaseMs(options.defaultLeaseMs ?? 30_000);
    this.#defaultMaxAttempts = checkMaxAttempts(options.defaultMaxAttempts ?? 5);
    this.#defaultDeadlineMs = options.defaultDeadlineMs ?? 86_400_000;
    this.#redriveLimit = options.redriveLimit ?? { max: 50, windowMs: 60_000 };
    this.#decide = seamsOf<JobQueueSeams>(options).decider ?? decideJob;
  }

  /**
   * Adds a job (SPEC J2). Enqueueing an existing id with the same payload is a no-op
   * (`created: false`); with a different payload it throws `VERQ_ENQUEUE_CONFLICT`.
   * With `{ trx }` the job is written inside that transaction (see {@link EnqueueOptions}).
   */
  async enqueue(input: EnqueueInput, options?: EnqueueOptions): Promise<EnqueueResult> {
    const [result] = await this.enqueueMany([input], options);
    if (result === undefined) throw new Error("enqueueMany returned no result for one input");
    return result;
  }

  /**
   * Adds many jobs in one transaction: one commit, and one statement per table, however many
   * jobs. Each job follows {@link enqueue}'s rules, and results come in input order. All or
   * nothing: one invalid input or one payload conflict throws and enqueues none of them.
   * With `{ trx }` they are written inside that transaction instead of one of their own.
   */
  async enqueueMany(inputs: readonly EnqueueInput[], options?: EnqueueOptions): Promise<EnqueueResult[]> {
    if (!isArray(inputs)) throw new VerqError("VERQ_INVALID_ARGUMENT", "enqueueMany takes an array of jobs");
    const outer = checkOuterTransaction(options);
    if (inputs.length === 0) return [];
    const now = this.#clock.now();
    const prepared = inputs.map((input) => this.#prepareEnqueue(input, now));
    const results =
      outer === undefined
        ? await this.#store.transaction((trx) => this.#enqueueIn(trx, prepared, now))
        : await this.#enqueueIn(outer, prepared, now);
    // With an outer transaction the job is not committed yet. A worker of this process that
    // wakes now waits for the store's one connection, so it claims after the commit; after a
    // rollback it finds nothing, which costs one empty claim.
    if (results.some((r) => r.created)) for (const listener of this.#enqueueListeners) listener();
    return results;
  }

  async #enqueueIn(trx: Kysely<VerqDatabase>, prepared: readonly PreparedEnqueue[], now: number): Promise<EnqueueResult[]> {
    const rows: EventRow[] = prepared.map(({ event, eventJson }) => ({
      streamId: event.data.id,
      version: 1,
      type: event.type,
      data: eventJson,
      at: now,
    }));
    const positions = await insertEventRows(trx, this.#store.dialect, JOB_STREAM, rows, "skip");
    const created: NewJobRow[] = [];
    const fresh: (EnqueueResult | undefined)[] = [];
    const existingIds: string[] = [];
    for (const { event, payloadJson } of prepared) {
      const position = positions.get(positionKey(event.data.id, 1));
      if (position === undefined) {
        existingIds.push(event.data.id);
        fresh.push(undefined);
        continue;
      }
      // Written once: a second input with the same id in this batch finds it "existing".
      positions.delete(positionKey(event.data.id, 1));
      const job = evolveJob(null, event);
      created.push({ job, payloadJson, enqueuePosition: position });
      fresh.push({ created: true, job });
    }
    await insertJobRows(trx, created);
    if (existingIds.length === 0) return fresh as EnqueueResult[];
    const existing = await selectJobsById(trx, existingIds);
    return prepared.map(({ event, payloadJson }, i) => {
      const result = fresh[i];
      if (result !== undefined) return result;
      const job = existing.get(event.data.id);
      if (job === undefined) throw unknownJob(event.data.id);
      if (canonicalJson(job.payload) !== payloadJson) {
        throw new VerqError(
          "VERQ_ENQUEUE_CONFLICT",
          `job ${event.data.id} exists with a different payload; use a new id for different work`,
        );
      }
      return { created: false, job };
    });
  }

  /**
   * Calls `listener` after each committed enqueue through this instance that created a job, so
   * a worker in the same process starts at once instead of at its next poll. Returns the
   * function that unsubscribes. Enqueues by other processes are seen at the next poll.
   */
  onEnqueued(listener: () => void): () => void {
    this.#enqueueListeners.add(listener);
    return () => this.#enqueueListeners.delete(listener);
  }

  /** Checks one enqueue input and builds its event; throws before anything is written. */
  #prepareEnqueue(input: EnqueueInput, now: number): PreparedEnqueue {
    const id = checkIdentifier(input?.id, "a job id");
    const payloadJson = canonicalJson(input.payload);
    const maxAttempts = checkMaxAttempts(input.maxAttempts ?? this.#defaultMaxAttempts);
    const deadline = checkFutureTime(input.deadline ?? now + this.#defaultDeadlineMs, now, "the deadline");
    const availableAt = checkTime(input.availableAt ?? now, "availableAt");
    const orderingKey =
      input.orderingKey === undefined ? null : checkIdentifier(input.orderingKey, "an ordering key", "VERQ_INVALID_ARGUMENT");
    const event = jobEvents.enqueued({
      id,
      payload: JSON.parse(payloadJson) as Job["payload"],
      maxAttempts,
      deadline,
      availableAt,
      orderingKey,
      at: now,
    });
    return { event, eventJson: JSON.stringify(event.data), payloadJson };
  }

  /**
   * Claims one due job for `owner` (SPEC J3): pending with `availableAt <= now`, or leased with
   * `leaseUntil <= now`. The token goes up by exactly 1. Returns `null` when nothing is due.
   * A job whose expired lease was its last attempt goes `dead(exhausted)` instead of being handed out.
   */
  async claim(owner: string, options: { leaseMs?: number } = {}): Promise<ClaimedJob | null> {
    const [job] = await this.claimMany(owner, 1, options);
    return job ?? null;
  }

  /**
   * Claims up to `max` due jobs for `owner` in one transaction, oldest first, each exactly as
   * {@link claim} would (its own token, the same lease). Returns fewer, or none, when fewer are due.
   */
  async claimMany(owner: string, max: number, options: { leaseMs?: number } = {}): Promise<ClaimedJob[]> {
    const leaseMs = this.#checkClaim(owner, max, options);
    return this.#store.transaction((trx) => this.#claimIn(trx, owner, max, leaseMs));
  }

  /**
   * A worker's round in one transaction: records `finishes` exactly as {@link finishMany}, then
   * claims up to `max` jobs exactly as {@link claimMany}. One commit instead of two; the same
   * per-job rules. `max` 0 only records.
   */
  async finishAndClaim(
    finishes: readonly FinishInput[],
    owner: string,
    max: number,
    options: { leaseMs?: number } = {},
  ): Promise<{ accepted: boolean[]; claimed: ClaimedJob[] }> {
    checkFinishes(finishes);
    const leaseMs = max === 0 ? 0 : this.#checkClaim(owner, max, options);
    return this.#store.transaction(async (trx) => {
      const accepted = await this.#finishIn(trx, finishes);
      const claimed = max === 0 ? [] : await this.#claimIn(trx, owner, max, leaseMs);
      return { accepted, claimed };
    });
  }

  #checkClaim(owner: string, max: number, options: { leaseMs?: number }): number {
    checkIdentifier(owner, "the owner", "VERQ_INVALID_ARGUMENT");
    checkBatchSize(max);
    return checkLeaseMs(options?.leaseMs ?? this.#defaultLeaseMs);
  }

  async #claimIn(trx: Kysely<VerqDatabase>, owner: string, max: number, leaseMs: number): Promise<ClaimedJob[]> {
    // Read the clock once the write lock is held: time spent waiting for another process
    // must not be taken out of the lease being handed out.
    const now = this.#clock.now();
    const command = jobCommands.claim({ owner, leaseMs, now });
    const claimed: ClaimedJob[] = [];
    while (claimed.length < max) {
      // Some candidates do not end leased (an expired last attempt goes dead): ask again.
      const candidates = await selectClaimCandidates(trx, this.#store.dialect, now, Math.max(8, max - claimed.length));
      const changes: JobChange[] = [];
      for (const job of candidates) {
        if (claimed.length >= max) break;
        const decision = this.#decide(job, command);
        if (!decision.accepted) continue;
        changes.push({ before: job, after: decision.after, events: decision.events });
        if (decision.after.state === "leased") claimed.push(decision.after as ClaimedJob);
      }
      if (changes.length === 0) break;
      await commitJobChanges(trx, this.#store.dialect, changes);
    }
    return claimed;
  }

  /**
   * Records the outcome of an attempt (SPEC J4). Accepted only when the job is leased and
   * `token` is its current token; otherwise returns `false` and changes nothing but the
   * stale-finish counter. Throws `VERQ_UNKNOWN_JOB` for an id that was never enqueued.
   */
  async finish(id: string, token: number, outcome: FinishOutcome): Promise<boolean> {
    const [accepted] = await this.finishMany([{ id, token, outcome }]);
    return accepted === true;
  }

  /**
   * Records many outcomes in one transaction, each exactly as {@link finish} would, in input
   * order (a second finish of the same job and token in one batch is stale). Returns, per input,
   * whether it was accepted. An unknown id or invalid input throws and records none of them.
   */
  async finishMany(finishes: readonly FinishInput[]): Promise<boolean[]> {
    checkFinishes(finishes);
    if (finishes.length === 0) return [];
    return this.#store.transaction((trx) => this.#finishIn(trx, finishes));
  }

  async #finishIn(trx: Kysely<VerqDatabase>, finishes: readonly FinishInput[]): Promise<boolean[]> {
    if (finishes.length === 0) return [];
    const now = this.#clock.now();
    const current = await selectJobsById(
      trx,
      finishes.map((f) => f.id),
    );
    const changes: JobChange[] = [];
    const accepted = finishes.map(({ id, token, outcome }) => {
      const job = current.get(id);
      if (job === undefined) throw unknownJob(id);
      let decision = this.#decide(job, jobCommands.finish({ token, outcome, retryDelayMs: 0, now }));
      if (!decision.accepted) return false;
      if (outcome === "retry") {
        // Jitter is drawn only for a retry that is accepted, so a refusal moves no RNG.
        const retryDelayMs = backoffDelay(this.#backoff, job.attempts, this.#rng);
        decision = this.#decide(job, jobCommands.finish({ token, outcome, retryDelayMs, now }));
        if (!decision.accepted) return false;
      }
      changes.push({ before: job, after: decision.after, events: decision.events });
      current.set(id, decision.after);
      return true;
    });
    await commitJobChanges(trx, this.#store.dialect, changes);
    const refused = accepted.filter((a) => !a).length;
    if (refused > 0) await bumpCounter(trx, "job.staleFinishesRefused", refused);
    return accepted;
  }

  /**
   * Extends a held lease to `now + leaseMs`, only for the current token and only while the
   * lease is still held. Returns whether it was extended.
   */
  async heartbeat(id: string, token: number, leaseMs: number): Promise<boolean> {
    checkIdentifier(id, "a job id");
    checkToken(token);
    checkLeaseMs(leaseMs);
    return this.#store.transaction(async (trx) => {
      const now = this.#clock.now();
      const job = await this.#requireJob(trx, id);
      const decision = this.#decide(job, jobCommands.heartbeat({ token, leaseMs, now }));
      if (!decision.accepted) return false;
      await commitJobChanges(trx, this.#store.dialect, [{ before: job, after: decision.after, events: decision.events }]);
      return true;
    });
  }

  /**
   * Claims one job, sends it, and finishes it (SPEC J5). Only a return of exactly `true` is
   * `ok`; a thrown `Retryable` is `retry`, a thrown `Permanent` is `permanent`. Any other error,
   * and any other return value (as `BadAck`), propagates and leaves the job leased: a later
   * claim recovers it after the lease expires.
   */
  async runOnce(owner: string, sender: Sender, options: { leaseMs?: number } = {}): Promise<RunOnceResult> {
    const job = await this.claim(owner, options);
    if (job === null) return { status: "idle" };
    const outcome = await sendForOutcome(sender, job);
    const accepted = await this.finish(job.id, job.token, outcome);
    return { status: "finished", id: job.id, token: job.token, outcome, accepted };
  }

  /**
   * Puts a dead job back to pending with attempts 0 and a new deadline (SPEC J6), writing the
   * audit row in the same transaction. The token is kept: a late finish with an old token stays
   * invalid. `note` must be a ticket id (see `REDRIVE_NOTE_PATTERN`). The deadline defaults to
   * now plus the job's original window. Throws `VERQ_NOT_DEAD`, `VERQ_INVALID_NOTE`,
   * `VERQ_INVALID_DEADLINE`, `VERQ_UNKNOWN_JOB` or `VERQ_REDRIVE_RATE_LIMITED`, changing nothing.
   */
  async redrive(id: string, options: { note: string; deadline?: number }): Promise<RedriveRecord> {
    checkIdentifier(id, "a job id");
    if (options?.deadline !== undefined) checkTime(options.deadline, "the deadline");
    return this.#store.transaction(async (trx) => {
      const now = this.#clock.now();
      const job = await this.#requireJob(trx, id);
      const deadline = options.deadline ?? now + (await this.#originalWindowMs(trx, job));
      const decision = this.#decide(job, jobCommands.redrive({ note: options.note, deadline, now }));
      if (!decision.accepted) {
        const known = REFUSAL_ERRORS[decision.refusal];
        if (known === undefined) throw new VerqError("VERQ_UNEXPECTED", `redrive refused: ${decision.refusal}`);
        const suffix = decision.refusal === "not-dead" ? ` ${job.state}` : "";
        throw new VerqError(known.code, known.message + suffix);
      }
      const recent = await countRedrivesSince(trx, now - this.#redriveLimit.windowMs + 1);
      if (recent >= this.#redriveLimit.max) {
        throw new VerqError(
          "VERQ_REDRIVE_RATE_LIMITED",
          `${recent} redrives in the last ${this.#redriveLimit.windowMs} ms reach the limit of ${this.#redriveLimit.max}; try again later`,
        );
      }
      await commitJobChanges(trx, this.#store.dialect, [{ before: job, after: decision.after, events: decision.events }]);
      return { jobId: id, previousToken: job.token, at: now, note: options.note, deadline };
    });
  }

  /**
   * Redrives dead jobs (optionally of one reason), oldest first, as far as the rate limit
   * allows, each with the same note. What the limit holds back is reported as `deferred`, never
   * dropped: call again after the window.
   */
  async redriveDead(options: { note: string; reason?: DeadReason; max?: number; deadline?: number }): Promise<{
    redriven: RedriveRecord[];
    deferred: number;
  }> {
    const dead = await selectJobsByState(this.#store.db, "dead", options.max ?? 10_000, options.reason);
    const redriven: RedriveRecord[] = [];
    for (const job of dead) {
      try {
        const input =
          options.deadline === undefined ? { note: options.note } : { note: options.note, deadline: options.deadline };
        redriven.push(await this.redrive(job.id, input));
      } catch (error) {
        if (isVerqError(error, "VERQ_REDRIVE_RATE_LIMITED")) break;
        throw error;
      }
    }
    return { redriven, deferred: dead.length - redriven.length };
  }

  /** Dead-letter and lease statistics (SPEC J7). */
  async stats(): Promise<JobStats> {
    return selectJobStats(this.#store.db);
  }

  /** The job's event stream, oldest first. Throws `VERQ_UNKNOWN_JOB` for an unknown id. */
  async history(id: string): Promise<StoredEvent[]> {
    checkIdentifier(id, "a job id");
    const events = await readStream(this.#store.db, JOB_STREAM, id);
    if (events.length === 0) throw unknownJob(id);
    return events;
  }

  /** The job's current projection, or `null` for an unknown id. */
  async get(id: string): Promise<Job | null> {
    checkIdentifier(id, "a job id");
    return selectJob(this.#store.db, id);
  }

  /** Jobs in one state, oldest first (dead ones by the time they died), at most `limit`. */
  async list(state: JobState, options: { limit?: number; reason?: DeadReason } = {}): Promise<Job[]> {
    return selectJobsByState(this.#store.db, state, options.limit ?? 100, options.reason);
  }

  /** The deadline window the job was enqueued with (a redrive's default), from its first event. */
  async #originalWindowMs(trx: Kysely<VerqDatabase>, job: Job): Promise<number> {
    const [first] = await readStream(trx, JOB_STREAM, job.id);
    const data = first?.type === "job.enqueued" ? (first.data as { deadline: number; at: number }) : undefined;
    return Math.max(1, data === undefined ? job.deadline - job.enqueuedAt : data.deadline - data.at);
  }

  async #requireJob(trx: Kysely<VerqDatabase>, id: string): Promise<Job> {
    const job = await selectJob(trx, id);
    if (job === null) throw unknownJob(id);
    return job;
  }
}

/**
 * Sends one claimed job and maps what happened to its outcome (SPEC J5): a return of exactly
 * `true` is `ok`, a thrown `Retryable` is `retry`, a thrown `Permanent` is `permanent`. Any
 * other return value throws `BadAck`, and any other error is rethrown: the job stays leased.
 */
export async function sendForOutcome(sender: Sender, job: ClaimedJob): Promise<FinishOutcome> {
  try {
    const result = await sender(job);
    if (result !== true) throw new BadAck(result);
    return "ok";
  } catch (error) {
    if (isVerqError(error, "VERQ_RETRYABLE")) return "retry";
    if (isVerqError(error, "VERQ_PERMANENT")) return "permanent";
    throw error;
  }
}

/** An enqueue input checked and turned into its event, before anything is written. */
interface PreparedEnqueue {
  readonly event: JobEnqueued;
  readonly eventJson: string;
  readonly payloadJson: string;
}

/**
 * The outer transaction of an enqueue, if any. Only a transaction gives the all-or-nothing
 * promise: `store.db` itself would commit the job at once, so it is refused.
 */
function checkOuterTransaction(options: EnqueueOptions | undefined): Kysely<VerqDatabase> | undefined {
  const trx: unknown = options?.trx;
  if (trx === undefined) return undefined;
  if (typeof trx !== "object" || trx === null || (trx as { isTransaction?: unknown }).isTransaction !== true) {
    throw new VerqError(
      "VERQ_INVALID_ARGUMENT",
      "trx must be a Kysely transaction on this store's database (store.transaction or store.db.transaction())",
    );
  }
  return trx as Kysely<VerqDatabase>;
}

/** Checks a batch of outcomes before anything is written. */
function checkFinishes(finishes: readonly FinishInput[]): void {
  if (!isArray(finishes)) throw new VerqError("VERQ_INVALID_ARGUMENT", "a batch of outcomes must be an array");
  for (const f of finishes) {
    checkIdentifier(f?.id, "a job id");
    checkToken(f.token);
    checkOutcome(f.outcome);
  }
}

/** `Array.isArray` without narrowing a typed array to `any[]` (callers in plain JS may pass anything). */
function isArray(value: unknown): boolean {
  return Array.isArray(value);
}

function unknownJob(id: string): VerqError {
  return new VerqError("VERQ_UNKNOWN_JOB", `no job with id ${JSON.stringify(id.slice(0, 80))}; check the id`);
}
