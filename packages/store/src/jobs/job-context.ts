import {
  VerqError,
  canonicalJson,
  checkLeaseMs,
  checkMaxAttempts,
  decideJob,
  defaultBackoff,
  jobRefusalError,
  newJob,
  systemClock,
  type BackoffPolicy,
  type Clock,
  type Job,
  type JobCommand,
  type JobDecider,
  type JobDecision,
  type JobEvent,
  type JobStreamState,
  type Rng,
} from "@verq/core";
import type { Kysely } from "kysely";
import { handleMany, type Decided, type StreamCommands, type StreamProjection } from "../command-path.ts";
import type { VerqDatabase } from "../schema.ts";
import type { VerqStore } from "../store.ts";
import { selectClaimCandidates } from "../sql/jobs/selectClaimCandidates.ts";
import { jobStream } from "../streams/job-stream.ts";

/** How many redrives may happen in a sliding window (SPEC J7: recovery must not re-create the overload). */
export interface RedriveLimit {
  readonly max: number;
  readonly windowMs: number;
}

/**
 * How a claim reads its candidates, in the order it offers them to the job machine. The store's
 * own is `selectClaimCandidates`: expired leases first, then higher priority, due time and
 * enqueue order, heads of their ordering groups only. The order is the query's, not a guard's.
 * It returns at most `limit` candidates, and fewer only when it saw every one there was: a claim
 * then searches no further. It runs in the claim's transaction after the queue limits were read,
 * which made the claim's planner settings (`Statements.withClaimSettings`).
 */
export type ClaimCandidates = typeof selectClaimCandidates;

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
  /**
   * What decides every change of a job: the job machine (`decideJob`) by default, and in
   * production always. A test passes a variant to prove that its suite catches a broken rule.
   */
  readonly decider?: JobDecider | undefined;
  /**
   * How a claim reads its candidates (see {@link ClaimCandidates}): the store's own query by
   * default, and in production always. A test passes one that reorders them to prove that its
   * suite catches a claim out of order.
   */
  readonly claimCandidates?: ClaimCandidates | undefined;
}

/** The most jobs one `claimMany` may take, and one page may hold: bounds one transaction's size and lock time. */
export const MAX_BATCH_SIZE = 1_000;

/**
 * What every part of a queue shares: its store, its clock and jitter, its defaults, the decider
 * and candidate reader it was given, the job stream's projection, and the canonical text of each
 * payload an enqueue checked (so that its row does not make it again).
 */
export interface JobContext {
  readonly store: VerqStore;
  readonly clock: Clock;
  readonly rng: Rng;
  readonly backoff: BackoffPolicy;
  readonly defaultLeaseMs: number;
  readonly defaultMaxAttempts: number;
  readonly defaultDeadlineMs: number;
  readonly redriveLimit: RedriveLimit;
  readonly decide: JobDecider;
  readonly claimCandidates: ClaimCandidates;
  readonly jobs: StreamProjection<JobStreamState, JobEvent>;
  readonly payloadTexts: WeakMap<object, string>;
  /** A payload's canonical JSON: the text its enqueue checked, else made anew. */
  readonly payloadText: (payload: Job["payload"]) => string;
}

/** The context of a queue on `store` with `options`; bad defaults throw a {@link VerqError}. */
export function jobContext(store: VerqStore, options: JobQueueOptions): JobContext {
  const payloadTexts = new WeakMap<object, string>();
  const payloadText = (payload: Job["payload"]) =>
    (typeof payload === "object" && payload !== null ? payloadTexts.get(payload) : undefined) ?? canonicalJson(payload);
  return {
    store,
    clock: options.clock ?? systemClock,
    rng: options.rng ?? Math.random,
    backoff: options.backoff ?? defaultBackoff,
    defaultLeaseMs: checkLeaseMs(options.defaultLeaseMs ?? 30_000),
    defaultMaxAttempts: checkMaxAttempts(options.defaultMaxAttempts ?? 5),
    defaultDeadlineMs: options.defaultDeadlineMs ?? 86_400_000,
    redriveLimit: options.redriveLimit ?? { max: 50, windowMs: 60_000 },
    decide: options.decider ?? decideJob,
    claimCandidates: options.claimCandidates ?? selectClaimCandidates,
    jobs: jobStream(store.dialect, payloadText),
    payloadTexts,
    payloadText,
  };
}

/** One job decided: the job it was decided against, and the decision. */
export type DecidedJob = Decided<JobStreamState, JobDecision>;

/**
 * The command path for `items`, in the caller's transaction: load their jobs, decide through the
 * machine (from the blank job for an id with none), commit what was accepted. Returns, per item,
 * the job it was decided against and the decision. Jobs in `known` are decided from the state
 * given there, without a load, and written with the usual version checks (see `handleMany`).
 */
export function handleJobs(
  context: JobContext,
  trx: Kysely<VerqDatabase>,
  items: readonly StreamCommands<JobCommand, JobStreamState>[],
  initial: (id: string) => JobStreamState = newJob,
  known?: ReadonlyMap<string, JobStreamState>,
): Promise<DecidedJob[]> {
  return handleMany(trx, context.store.dialect, context.jobs, context.decide, items, initial, known);
}

/** Throws the coded error of a refusal that is one (core's `jobRefusalError`); returns whether the decision was accepted. */
export function answer({ before, decision }: DecidedJob, command?: JobCommand): boolean {
  if (decision.accepted) return true;
  const error = jobRefusalError(decision.refusal, before, command);
  if (error !== undefined) throw error;
  return false;
}

/** A count named `name`, checked: a whole number from 1 to `max` ({@link MAX_BATCH_SIZE} unless told), else `VERQ_INVALID_ARGUMENT`. */
export function checkCount(value: number, name: string, max = MAX_BATCH_SIZE): number {
  if (!Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new VerqError("VERQ_INVALID_ARGUMENT", `${name} must be a whole number from 1 to ${max}`);
  }
  return value;
}

/** A batch or page size, checked: a whole number from 1 to {@link MAX_BATCH_SIZE}. */
export function checkBatchSize(max: number): number {
  return checkCount(max, "a batch size");
}

/** `Array.isArray` without narrowing a typed array to `any[]` (callers in plain JS may pass anything). */
export function isArray(value: unknown): boolean {
  return Array.isArray(value);
}
