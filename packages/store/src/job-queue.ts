import {
  BadAck,
  JOB_STREAM,
  VerqError,
  backoffDelay,
  DEFAULT_QUEUE,
  canonicalJson,
  checkFutureTime,
  checkIdentifier,
  checkLeaseMs,
  checkMaxAttempts,
  checkOutcome,
  checkPriority,
  checkQueueLimit,
  checkQueueName,
  checkTime,
  checkToken,
  decideJob,
  decideQueue,
  defaultBackoff,
  isVerqError,
  jobCommands,
  newJob,
  newQueue,
  queueCommands,
  systemClock,
  type BackoffPolicy,
  type Clock,
  type DeadReason,
  type FinishOutcome,
  type Job,
  type JobCommand,
  type JobDecider,
  type JobDecision,
  type JobEvent,
  type JobRefusal,
  type JobState,
  type JobStreamState,
  type ArchivedJob,
  type QueueSettings,
  type Rng,
} from "@verq/core";
import type { Kysely } from "kysely";
import {
  commitChanges,
  decideMany,
  type Decided,
  type StreamChange,
  type StreamCommands,
  type StreamProjection,
} from "./command-path.ts";
import type { VerqDatabase } from "./schema.ts";
import type { VerqStore } from "./store.ts";
import { seamsOf, type ClaimCandidates, type JobQueueSeams } from "./seams.ts";
import { bumpCounter } from "./sql/counters.ts";
import { countRedrivesSince } from "./sql/jobs/countRedrivesSince.ts";
import { readStream } from "./sql/events/readStream.ts";
import type { StoredEvent } from "./sql/events/storedEvent.ts";
import { selectClaimCandidates } from "./sql/jobs/selectClaimCandidates.ts";
import { selectJob } from "./sql/jobs/selectJob.ts";
import { selectJobStats, type JobStats } from "./sql/jobs/selectJobStats.ts";
import { selectJobsByState } from "./sql/jobs/selectJobsByState.ts";
import { countDeadJobs } from "./sql/jobs/countDeadJobs.ts";
import { selectDeadPage, type DeadCursor, type DeadFilter } from "./sql/jobs/selectDeadPage.ts";
import { selectOriginalWindow } from "./sql/jobs/selectOriginalWindow.ts";
import { jobStream } from "./streams/job-stream.ts";
import { pruneJobs, type PruneOptions, type PruneResult } from "./job-retention.ts";
import { selectArchivedJobs } from "./sql/jobs/selectArchivedJobs.ts";
import { queueStream } from "./streams/queue-stream.ts";
import { queueTopic, selectQueueLoads } from "./sql/queues/selectQueueLoads.ts";

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
  /** The named queue: `default` unless told. An identifier, as job ids are. */
  readonly queue?: string;
  /**
   * A whole number from -1000 to 1000, 0 unless told: among the due jobs of the queues a claim
   * asks for, higher priority is claimed first, then enqueue order. Strict: a steady stream of
   * higher-priority work delays lower-priority work without bound (no aging).
   */
  readonly priority?: number;
}

/** How to claim. Every field has a default. */
export interface ClaimOptions {
  /** The lease of each job claimed; the queue's `defaultLeaseMs` when absent. */
  readonly leaseMs?: number;
  /** The named queues to claim from, at least one: `["default"]` when absent. */
  readonly queues?: readonly string[];
}

/** A {@link JobQueue.setQueueLimit}'s answer: `changed: false` when the queue already had that limit. */
export interface SetQueueLimitResult {
  readonly changed: boolean;
  readonly queue: QueueSettings;
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

/**
 * A lease that a claim found expired (SPEC J3): the job taken over with the next token
 * (`state` leased), or, when the expired lease was its last attempt, `dead(exhausted)`.
 */
export interface LeaseExpiry {
  readonly id: string;
  /** The token of the lease that expired. */
  readonly token: number;
  /** Who held it. */
  readonly owner: string | null;
  /** The job's state after the claim: `leased` (taken over) or `dead`. */
  readonly state: JobState;
}

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

/** The most queues one claim may name. */
export const MAX_CLAIM_QUEUES = 100;

/** A claim's options, checked. */
interface CheckedClaim {
  readonly leaseMs: number;
  readonly queues: readonly string[];
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

/**
 * What a {@link JobQueue.cancel} did: the job cancelled (dead with reason `cancelled`; `state`
 * is the state it was cancelled in, `previousToken` the token it keeps), or refused by the
 * machine because it had already ended (`not-cancellable`: done or dead; `state` says which).
 */
export type CancelResult =
  | {
      readonly cancelled: true;
      readonly jobId: string;
      readonly state: "pending" | "leased";
      readonly previousToken: number;
      readonly note: string;
      readonly at: number;
    }
  | { readonly cancelled: false; readonly jobId: string; readonly refusal: "not-cancellable"; readonly state: "done" | "dead" };

/**
 * The refusals that are errors, each with its coded error (built from the job and the command
 * refused); every other refusal is an answer: `false`, a no-op, nothing claimed.
 */
const REFUSAL_ERRORS: Partial<Record<JobRefusal, (job: JobStreamState, command: JobCommand | undefined) => VerqError>> = {
  "unknown-job": (job) => unknownJob(job.id),
  "payload-conflict": (job) =>
    new VerqError("VERQ_ENQUEUE_CONFLICT", `job ${job.id} exists with a different payload; use a new id for different work`),
  "archived-id": (job) => {
    const archived = job.state === "new" ? job.archived : null;
    const was = archived === null ? "" : ` (it was ${archived.state}, pruned at ${new Date(archived.prunedAt).toISOString()})`;
    return new VerqError("VERQ_JOB_ARCHIVED", `job ${job.id} was pruned${was}; its id is archived, use a new id for new work`);
  },
  "not-dead": (job) => new VerqError("VERQ_NOT_DEAD", `only a dead job can be redriven; this one is ${job.state}`),
  "invalid-note": (_, command) =>
    new VerqError(
      "VERQ_INVALID_NOTE",
      `the ${command?.type === "job.cancel" ? "cancel" : "redrive"} note must be a ticket id: 1-64 ASCII letters, digits or . _ - : # /, starting with a letter or digit`,
    ),
  "invalid-deadline": () => new VerqError("VERQ_INVALID_DEADLINE", "the new deadline must be later than now"),
  "rate-limited": (_, command) => {
    const facts =
      command?.type === "job.redrive"
        ? `${command.recentRedrives} redrives in the last ${command.limit.windowMs} ms reach the limit of ${command.limit.max}`
        : "the redrives in the window reach the limit";
    return new VerqError("VERQ_REDRIVE_RATE_LIMITED", `${facts}; try again later`);
  },
};

/** Throws the coded error of a refusal that is one (see {@link REFUSAL_ERRORS}); returns whether the decision was accepted. */
function answer({ before, decision }: Decided<JobStreamState, JobDecision>, command?: JobCommand): boolean {
  if (decision.accepted) return true;
  const error = REFUSAL_ERRORS[decision.refusal];
  if (error !== undefined) throw error(before, command);
  return false;
}

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
  readonly #selectCandidates: ClaimCandidates;
  readonly #jobs: StreamProjection<JobStreamState, JobEvent>;
  /** The canonical text of each payload an enqueue checked, so that its row does not make it again. */
  readonly #payloadTexts = new WeakMap<object, string>();

  constructor(store: VerqStore, options: JobQueueOptions = {}) {
    this.#store = store;
    this.#jobs = jobStream(
      store.dialect,
      (payload) =>
        (typeof payload === "object" && payload !== null ? this.#payloadTexts.get(payload) : undefined) ?? canonicalJson(payload),
    );
    this.#clock = options.clock ?? systemClock;
    this.#rng = options.rng ?? Math.random;
    this.#backoff = options.backoff ?? defaultBackoff;
    this.#defaultLeaseMs = checkLeaseMs(options.defaultLeaseMs ?? 30_000);
    this.#defaultMaxAttempts = checkMaxAttempts(options.defaultMaxAttempts ?? 5);
    this.#defaultDeadlineMs = options.defaultDeadlineMs ?? 86_400_000;
    this.#redriveLimit = options.redriveLimit ?? { max: 50, windowMs: 60_000 };
    const seams = seamsOf<JobQueueSeams>(options);
    this.#decide = seams.decider ?? decideJob;
    this.#selectCandidates = seams.claimCandidates ?? selectClaimCandidates;
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
    const items = inputs.map((input) => this.#enqueueCommand(input, now));
    return outer === undefined
      ? await this.#store.transaction((trx) => this.#enqueueIn(trx, items))
      : await this.#enqueueIn(outer, items);
  }

  /**
   * Every enqueue is first decided as the creation of its job, from the blank job at version 0,
   * and its first event written insert-or-nothing: the UNIQUE constraint, not a lookup, tells
   * whether the job is new (one statement per table for the batch). The losers, whose job
   * already existed or was created meanwhile by another writer, are decided again against that
   * job: the machine refuses them as `already-enqueued` (`created: false`) or `payload-conflict`.
   */
  async #enqueueIn(trx: Kysely<VerqDatabase>, items: readonly EnqueueItem[]): Promise<EnqueueResult[]> {
    // One query for the batch: an id once pruned is decided from its archive row (refused).
    const archived = await selectArchivedJobs(trx, this.#store.dialect, [...new Set(items.map((item) => item.id))]);
    const initial = (id: string) => newJob(id, archived.get(id) ?? null);
    const first = decideMany(new Map(), this.#decide, items, initial);
    const written = await commitChanges(trx, this.#store.dialect, this.#jobs, first.changes, { creations: "skip" });
    if (written.length > 0) await this.#store.announce(trx, "jobs");
    const created = new Set(written.map((change) => change.after.id));
    const lost = items.filter((item) => !created.has(item.id));
    const again = lost.length === 0 ? [] : await this.#handle(trx, lost, initial);
    return items.map((item, i) => {
      const decided = created.has(item.id) ? first.decided[i] : again.shift();
      if (decided === undefined) throw new Error(`no decision for the enqueue of ${item.id}`);
      return enqueueResult(decided, item.commands[0]);
    });
  }

  /**
   * Calls `listener` after each committed enqueue through a queue on the same store that
   * created a job, so a worker in the same process starts at once instead of at its next poll,
   * and on PostgreSQL also after every committed enqueue or redrive by any other process on the
   * database (`LISTEN`). Returns the function that unsubscribes. On SQLite, other processes'
   * enqueues are seen at the next poll.
   */
  onEnqueued(listener: () => void): () => void {
    return this.#store.dialect.wakeups.subscribe("jobs", listener);
  }

  /** Checks one enqueue input and builds its command; throws before anything is written. */
  #enqueueCommand(input: EnqueueInput, now: number): EnqueueItem {
    const id = checkIdentifier(input?.id, "a job id");
    const payloadJson = canonicalJson(input.payload);
    const maxAttempts = checkMaxAttempts(input.maxAttempts ?? this.#defaultMaxAttempts);
    const deadline = checkFutureTime(input.deadline ?? now + this.#defaultDeadlineMs, now, "the deadline");
    const availableAt = checkTime(input.availableAt ?? now, "availableAt");
    const orderingKey =
      input.orderingKey === undefined ? null : checkIdentifier(input.orderingKey, "an ordering key", "VERQ_INVALID_ARGUMENT");
    const queue = checkQueueName(input.queue ?? DEFAULT_QUEUE);
    const priority = checkPriority(input.priority ?? 0);
    // A copy of its own, in canonical key order: nothing the caller does to its object later reaches it.
    const payload = JSON.parse(payloadJson) as Job["payload"];
    if (typeof payload === "object" && payload !== null) this.#payloadTexts.set(payload, payloadJson);
    return {
      id,
      commands: [jobCommands.enqueue({ payload, maxAttempts, deadline, availableAt, orderingKey, queue, priority, now })],
    };
  }

  /**
   * Claims one due job for `owner` (SPEC J3): pending with `availableAt <= now`, or leased with
   * `leaseUntil <= now`. The token goes up by exactly 1. Returns `null` when nothing is due.
   * A job whose expired lease was its last attempt goes `dead(exhausted)` instead of being handed out.
   */
  async claim(owner: string, options: ClaimOptions = {}): Promise<ClaimedJob | null> {
    const [job] = await this.claimMany(owner, 1, options);
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
    const claim = this.#checkClaim(owner, max, options);
    return this.#store.transaction(async (trx) => (await this.#claimIn(trx, owner, max, claim)).claimed);
  }

  /**
   * A worker's round in one transaction: records `finishes` exactly as {@link finishMany}, then
   * claims up to `max` jobs exactly as {@link claimMany}. One commit instead of two; the same
   * per-job rules. `max` 0 only records. `expired` lists the expired leases the claims found.
   */
  async finishAndClaim(
    finishes: readonly FinishInput[],
    owner: string,
    max: number,
    options: ClaimOptions = {},
  ): Promise<{ accepted: boolean[]; claimed: ClaimedJob[]; expired: LeaseExpiry[] }> {
    checkFinishes(finishes);
    const claim = max === 0 ? null : this.#checkClaim(owner, max, options);
    return this.#store.transaction(async (trx) => {
      const accepted = await this.#finishIn(trx, finishes);
      const { claimed, expired } = claim === null ? { claimed: [], expired: [] } : await this.#claimIn(trx, owner, max, claim);
      return { accepted, claimed, expired };
    });
  }

  #checkClaim(owner: string, max: number, options: ClaimOptions): CheckedClaim {
    checkIdentifier(owner, "the owner", "VERQ_INVALID_ARGUMENT");
    checkBatchSize(max);
    const leaseMs = checkLeaseMs(options?.leaseMs ?? this.#defaultLeaseMs);
    const queues = options?.queues ?? [DEFAULT_QUEUE];
    if (!isArray(queues) || queues.length === 0 || queues.length > MAX_CLAIM_QUEUES) {
      throw new VerqError("VERQ_INVALID_ARGUMENT", `queues must name 1 to ${MAX_CLAIM_QUEUES} queues`);
    }
    return { leaseMs, queues: [...new Set(queues.map(checkQueueName))] };
  }

  async #claimIn(
    trx: Kysely<VerqDatabase>,
    owner: string,
    max: number,
    { leaseMs, queues }: CheckedClaim,
  ): Promise<{ claimed: ClaimedJob[]; expired: LeaseExpiry[] }> {
    // The limited queues' turns and leased counts first: the count a limit is judged by must be
    // the one no other claimer can change before this transaction commits.
    const loads = await selectQueueLoads(trx, this.#store.dialect, queues);
    // Read the clock once the write lock is held: time spent waiting for another process
    // must not be taken out of the lease being handed out.
    const now = this.#clock.now();
    const unlimited = jobCommands.claim({ owner, leaseMs, now });
    const claimed: ClaimedJob[] = [];
    const expired: LeaseExpiry[] = [];
    const hasRoom = (queue: string) => {
      const load = loads.get(queue);
      return load === undefined || load.maxLeased === null || load.leased < load.maxLeased;
    };
    while (claimed.length < max) {
      // Full queues are left out of the search for pending jobs; the machine's queueFull guard
      // still decides each claim. Some candidates do not end leased (an expired last attempt goes
      // dead): ask again.
      const due = queues.filter(hasRoom);
      const candidates = await this.#selectCandidates(trx, this.#store.dialect, now, Math.max(8, max - claimed.length), {
        expired: queues,
        due,
      });
      const changes: StreamChange<JobStreamState, JobEvent>[] = [];
      // A spent lease quarantined here may free a slot of a queue this search left out: its due
      // jobs may outrank the pending candidates, so those wait for the next search.
      let freedLeftOut = false;
      for (const job of candidates) {
        if (claimed.length >= max || (freedLeftOut && job.state === "pending")) break;
        const load = loads.get(job.queue);
        const decision = this.#decide(job, load === undefined ? unlimited : { ...unlimited, queueLoad: load });
        if (!decision.accepted) continue;
        changes.push({ before: job, after: decision.after, events: decision.events });
        if (decision.after.state === "leased") claimed.push(decision.after as ClaimedJob);
        if (job.state === "leased") {
          expired.push({ id: job.id, token: job.token, owner: job.owner, state: decision.after.state });
          if (decision.after.state !== "leased" && !due.includes(job.queue)) freedLeftOut = true;
        }
        // This batch's own grants count against the limit of the claims after them.
        if (load !== undefined) {
          const delta = (decision.after.state === "leased" ? 1 : 0) - (job.state === "leased" ? 1 : 0);
          loads.set(job.queue, { ...load, leased: load.leased + delta });
        }
      }
      if (changes.length === 0) break;
      await commitChanges(trx, this.#store.dialect, this.#jobs, changes);
    }
    return { claimed, expired };
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
    const decided = await this.#handle(
      trx,
      finishes.map(({ id, token, outcome }) => ({
        id,
        // The jitter is drawn before deciding, for every finish, so that one decision settles it.
        commands: (job: JobStreamState) => [
          jobCommands.finish({ token, outcome, retryDelayMs: backoffDelay(this.#backoff, job.attempts, this.#rng), now }),
        ],
      })),
    );
    const accepted = decided.map((d) => answer(d));
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
      const command = jobCommands.heartbeat({ token, leaseMs, now: this.#clock.now() });
      const [decided] = await this.#handle(trx, [{ id, commands: [command] }]);
      return decided !== undefined && answer(decided, command);
    });
  }

  /**
   * Claims one job, sends it, and finishes it (SPEC J5). Only a return of exactly `true` is
   * `ok`; a thrown `Retryable` is `retry`, a thrown `Permanent` is `permanent`. Any other error,
   * and any other return value (as `BadAck`), propagates and leaves the job leased: a later
   * claim recovers it after the lease expires.
   */
  async runOnce(owner: string, sender: Sender, options: ClaimOptions = {}): Promise<RunOnceResult> {
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
      // Redrives take turns, so that the count of recent ones below is the count the limit judges.
      await this.#store.dialect.statements.exclusive(trx, "job.redrive");
      const now = this.#clock.now();
      const command = jobCommands.redrive({
        note: options.note,
        deadline: options.deadline ?? null,
        recentRedrives: await countRedrivesSince(trx, now - this.#redriveLimit.windowMs + 1),
        limit: this.#redriveLimit,
        originalWindowMs: (await selectOriginalWindow(trx, id)) ?? 0,
        now,
      });
      const [decided] = await this.#handle(trx, [{ id, commands: [command] }]);
      const redriven = decided !== undefined && answer(decided, command) ? decided.decision : undefined;
      const event = redriven?.accepted === true ? redriven.events.find((e) => e.type === "job.redriven") : undefined;
      if (event?.type !== "job.redriven") throw new VerqError("VERQ_UNEXPECTED", `the redrive of ${id} wrote no job.redriven`);
      const { previousToken, note, deadline } = event.data;
      await this.#store.announce(trx, "jobs");
      return { jobId: id, previousToken, at: now, note, deadline };
    });
  }

  /**
   * Cancels a pending or leased job: it goes dead with reason `cancelled`, with `note` (a ticket
   * id, see `REDRIVE_NOTE_PATTERN`) and the time in its `job.cancelled` event. A pending job is
   * never claimed again; a leased job's holder gets `false` from its next `heartbeat` and from
   * its `finish`, since the job is no longer leased (the token is kept, so a refused finish counts
   * in `staleFinishesRefused` like any other). A job that already ended (done or dead) is
   * refused as `not-cancellable`, changing nothing. Throws `VERQ_UNKNOWN_JOB` for an id never
   * enqueued and `VERQ_INVALID_NOTE` for a note that is not a ticket id, changing nothing.
   * A cancelled job can be redriven by id like any dead job; a bulk redrive passes it over
   * unless asked for reason `cancelled`.
   */
  async cancel(id: string, options: { note: string }): Promise<CancelResult> {
    checkIdentifier(id, "a job id");
    return this.#store.transaction(async (trx) => {
      const command = jobCommands.cancel({ note: options?.note, now: this.#clock.now() });
      const [decided] = await this.#handle(trx, [{ id, commands: [command] }]);
      if (decided === undefined) throw new Error("no decision for one cancel");
      const { before, decision } = decided;
      if (!answer(decided, command)) {
        if (before.state !== "done" && before.state !== "dead") {
          throw new VerqError("VERQ_UNEXPECTED", `the cancel of ${id} was refused in state ${before.state}`);
        }
        return { cancelled: false, jobId: id, refusal: "not-cancellable", state: before.state };
      }
      const event = decision.accepted ? decision.events.find((e) => e.type === "job.cancelled") : undefined;
      if (event?.type !== "job.cancelled" || (before.state !== "pending" && before.state !== "leased")) {
        throw new VerqError("VERQ_UNEXPECTED", `the cancel of ${id} wrote no job.cancelled`);
      }
      const { previousToken, note, at } = event.data;
      return { cancelled: true, jobId: id, state: before.state, previousToken, note, at };
    });
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
    const dead = await selectJobsByState(
      this.#store.db,
      "dead",
      options.max ?? 10_000,
      options.reason,
      options.reason === undefined ? ["cancelled"] : [],
    );
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

  /**
   * One page of dead jobs matching `filter` (a reason, dead at or before a time), oldest death
   * first, strictly after `after` (the last job of the previous page): a bulk operation walks
   * every page without skipping or repeating a job while others leave the dead state.
   */
  async deadPage(filter: DeadFilter, after: DeadCursor | null, limit: number): Promise<Job[]> {
    checkBatchSize(limit);
    return selectDeadPage(this.#store.db, filter, after, limit);
  }

  /** How many dead jobs match `filter` now. */
  async countDead(filter: DeadFilter = {}): Promise<number> {
    return countDeadJobs(this.#store.db, filter);
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
    return pruneJobs(this.#store, this.#decide, this.#jobs, this.#clock, options);
  }

  /** The archive row of a pruned job, or `null` for an id that was never pruned. */
  async archived(id: string): Promise<ArchivedJob | null> {
    checkIdentifier(id, "a job id");
    const found = await selectArchivedJobs(this.#store.db, this.#store.dialect, [id]);
    return found.get(id) ?? null;
  }

  /**
   * Dead-letter and lease statistics (SPEC J7), overall and per queue (`queues`: every queue
   * that has jobs or a limit; with `options.queue`, that queue only, zeros if it has neither).
   */
  async stats(options: { queue?: string } = {}): Promise<JobStats> {
    const queue = options?.queue === undefined ? undefined : checkQueueName(options.queue);
    return selectJobStats(this.#store.db, queue);
  }

  /**
   * Sets the global concurrency limit of `queue`: from now on a claim never leases one of its
   * jobs while `maxLeased` of them are leased, across every process and host on this store (the
   * job machine's `queueFull` guard, judged in the claim's transaction). `null` removes the limit.
   * A lower limit than the jobs leased now takes no lease back. The change is a `queue.limitSet`
   * event on the queue's stream; setting the limit it already has changes nothing
   * (`changed: false`). Throws `VERQ_INVALID_ARGUMENT` for a bad name or limit.
   *
   * @example
   * await queue.setQueueLimit("emails", { maxLeased: 5 }); // at most 5 emails in flight, store-wide
   */
  async setQueueLimit(queue: string, options: { maxLeased: number | null }): Promise<SetQueueLimitResult> {
    const name = checkQueueName(queue);
    const maxLeased = checkQueueLimit(options?.maxLeased);
    return this.#store.transaction(async (trx) => {
      await this.#store.dialect.statements.exclusive(trx, queueTopic(name));
      const current = await queueStream.load(trx, [name]);
      const command = queueCommands.setLimit({ maxLeased, now: this.#clock.now() });
      const { decided, changes } = decideMany(current, decideQueue, [{ id: name, commands: [command] }], newQueue);
      await commitChanges(trx, this.#store.dialect, queueStream, changes);
      const only = decided[0];
      if (only === undefined) throw new Error(`no decision for queue ${name}`);
      return only.decision.accepted ? { changed: true, queue: only.decision.after } : { changed: false, queue: only.before };
    });
  }

  /** The settings of `queue` (unlimited, version 0 when no limit was ever set). */
  async queueSettings(queue: string): Promise<QueueSettings> {
    const name = checkQueueName(queue);
    return (await queueStream.load(this.#store.db, [name])).get(name) ?? newQueue(name);
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

  /**
   * The one command path for `items`, in the caller's transaction: load their jobs, decide
   * through the machine (from the blank job for an id with none), commit what was accepted.
   * Returns, per item, the job it was decided against and the decision.
   */
  async #handle(
    trx: Kysely<VerqDatabase>,
    items: readonly StreamCommands<JobCommand, JobStreamState>[],
    initial: (id: string) => JobStreamState = newJob,
  ): Promise<Decided<JobStreamState, JobDecision>[]> {
    const current = await this.#jobs.load(trx, [...new Set(items.map((item) => item.id))]);
    const { decided, changes } = decideMany(current, this.#decide, items, initial);
    await commitChanges(trx, this.#store.dialect, this.#jobs, changes);
    return decided;
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

/** An enqueue input checked and turned into its command, before anything is written. */
interface EnqueueItem {
  readonly id: string;
  readonly commands: readonly [JobCommand];
}

/** An enqueue's answer: the job created, the existing one for the same payload (a no-op), or the refusal's error. */
function enqueueResult(decided: Decided<JobStreamState, JobDecision>, command: JobCommand): EnqueueResult {
  const { before, decision } = decided;
  if (decision.accepted) return { created: true, job: decision.after };
  if (decision.refusal === "already-enqueued" && before.state !== "new") return { created: false, job: before };
  answer(decided, command);
  throw new VerqError("VERQ_UNEXPECTED", `enqueue of ${before.id} refused: ${decision.refusal}`);
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
