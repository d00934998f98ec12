import {
  VerqError,
  backoffDelay,
  checkIdentifier,
  checkLeaseMs,
  checkOutcome,
  checkToken,
  isJobFailure,
  jobCommands,
  newJob,
  sendVerdict,
  type FailureClassifier,
  type FinishOutcome,
  type Job,
  type JobFailure,
  type JobStreamState,
  type SendSettlement,
  type SendVerdict,
} from "@verq/core";
import type { Kysely } from "kysely";
import { retryOnVersionConflict, WITNESSED } from "../command-path.ts";
import type { VerqDatabase } from "../schema.ts";
import { bumpCounter } from "../sql/counters.ts";
import { checkClaim, claimIn, claimJobs, type ClaimOptions, type ClaimRound, type ClaimedJob } from "./claim-jobs.ts";
import { answer, handleJobs, isArray, type JobContext } from "./job-context.ts";

/**
 * One outcome to record: the job, the token of the claim it is for, and what the attempt gave;
 * for `retry` and `permanent`, what it failed with (recorded on the event, identifiers only).
 */
export interface FinishInput {
  readonly id: string;
  readonly token: number;
  readonly outcome: FinishOutcome;
  readonly failure?: JobFailure | null;
}

/**
 * A failure whose effect is unknown to record (SPEC J5): the job stays leased with the same
 * token, and `job.failed` records `failure`.
 */
export interface FailureInput {
  readonly id: string;
  readonly token: number;
  readonly outcome: "failed";
  readonly failure: JobFailure;
}

/** What a worker's round records per attempt: a finish, or a failure whose effect is unknown. */
export type RecordInput = FinishInput | FailureInput;

/**
 * The jobs a worker holds, by id, each as this store's last accepted change of it left it (its
 * claim, or its last heartbeat): a round decides their outcomes from these states without
 * reading them again. Only states the store itself returned belong here.
 */
export type HeldJobs = ReadonlyMap<string, Job>;

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

/**
 * Records many outcomes in one transaction, each decided by the job machine in input order
 * (SPEC J4: accepted only for the current token of a leased job; a second finish of the same
 * job and token in one batch is stale). Returns, per input, whether it was accepted. An unknown
 * id or invalid input throws and records none of them.
 */
export async function finishJobs(context: JobContext, finishes: readonly RecordInput[]): Promise<boolean[]> {
  checkFinishes(finishes);
  if (finishes.length === 0) return [];
  return context.store.transaction((trx) => finishIn(context, trx, finishes), undefined, WITNESSED);
}

/**
 * A worker's round in one transaction: records `finishes` as {@link finishJobs}, then claims up
 * to `max` jobs as `claimJobs` (none when `max` is 0). One commit instead of two; the same
 * per-job rules.
 */
export async function finishAndClaim(
  context: JobContext,
  finishes: readonly RecordInput[],
  owner: string,
  max: number,
  options: ClaimOptions,
  held?: HeldJobs,
): Promise<{ accepted: boolean[] } & ClaimRound> {
  checkFinishes(finishes);
  const claim = max === 0 ? null : checkClaim(context, owner, max, options);
  // The held states are trusted for the first try only: a try that fails on a version conflict
  // (one of them was moved on by another writer) is decided again from a load, by the store's
  // own retry (PostgreSQL) or the command path's (SQLite, which gives the conflict back).
  let trusted = held;
  const round = () =>
    context.store.transaction(
      async (trx) => {
        const known = trusted;
        trusted = undefined;
        const accepted = await finishIn(context, trx, finishes, known);
        const { claimed, expired } =
          claim === null ? { claimed: [], expired: [] } : await claimIn(context, trx, owner, max, claim);
        return { accepted, claimed, expired };
      },
      undefined,
      WITNESSED,
    );
  return held === undefined ? round() : retryOnVersionConflict(round);
}

/**
 * Extends a held lease to `now + leaseMs`, only for the current token and only while the lease
 * is still held (the job machine decides). Returns whether it was extended.
 */
export async function heartbeatJob(context: JobContext, id: string, token: number, leaseMs: number): Promise<boolean> {
  return (await extendLease(context, id, token, leaseMs)) !== null;
}

/** {@link heartbeatJob}, returning the job as the extension left it, or `null` when refused. */
export async function extendLease(context: JobContext, id: string, token: number, leaseMs: number): Promise<ClaimedJob | null> {
  checkIdentifier(id, "a job id");
  checkToken(token);
  checkLeaseMs(leaseMs);
  return context.store.transaction(
    async (trx) => {
      const command = jobCommands.heartbeat({ token, leaseMs, now: context.clock.now() });
      const [decided] = await handleJobs(context, trx, [{ id, commands: [command] }]);
      if (decided === undefined) return null;
      answer(decided, command);
      return decided.decision.accepted ? (decided.decision.after as ClaimedJob) : null;
    },
    undefined,
    WITNESSED,
  );
}

/**
 * Claims one job, sends it, and finishes it with what the send means (core's `sendVerdict`,
 * with `classify` for the errors the sender declares). An error the send propagates is recorded
 * as the job's failure (`job.failed`) and rethrown: the job stays leased, and a later claim
 * recovers it after the lease expires.
 */
export async function runOnce(
  context: JobContext,
  owner: string,
  sender: Sender,
  options: ClaimOptions & { readonly classify?: FailureClassifier },
): Promise<RunOnceResult> {
  const [job] = await claimJobs(context, owner, 1, options);
  if (job === undefined) return { status: "idle" };
  const verdict = await sendForOutcome(sender, job, options.classify);
  if ("error" in verdict) {
    await finishJobs(context, [{ id: job.id, token: job.token, outcome: "failed", failure: verdict.failure }]);
    throw verdict.error;
  }
  const { outcome, failure } = verdict;
  const [accepted] = await finishJobs(context, [{ id: job.id, token: job.token, outcome, failure }]);
  return { status: "finished", id: job.id, token: job.token, outcome, accepted: accepted === true };
}

/**
 * Sends one claimed job and says what the send means, as core's `sendVerdict` maps it (SPEC
 * J5): a return of exactly `true` is `ok`, a thrown `Retryable` is `retry`, a thrown `Permanent`
 * is `permanent`, an error `classify` maps is what it says; any other return value is a
 * `BadAck` and any other error is the error to propagate, each with its failure to record (the
 * job stays leased). Never rejects.
 */
export async function sendForOutcome(sender: Sender, job: ClaimedJob, classify?: FailureClassifier): Promise<SendVerdict> {
  let settled: SendSettlement;
  try {
    settled = { returned: await sender(job) };
  } catch (error) {
    settled = { threw: error };
  }
  return sendVerdict(settled, classify);
}

async function finishIn(
  context: JobContext,
  trx: Kysely<VerqDatabase>,
  finishes: readonly RecordInput[],
  held?: HeldJobs,
): Promise<boolean[]> {
  if (finishes.length === 0) return [];
  const now = context.clock.now();
  const decided = await handleJobs(
    context,
    trx,
    finishes.map((record) => ({
      id: record.id,
      // The jitter is drawn before deciding, for every finish, so that one decision settles it.
      commands: (job: JobStreamState) => [
        record.outcome === "failed"
          ? jobCommands.fail({ token: record.token, failure: record.failure, now })
          : jobCommands.finish({
              token: record.token,
              outcome: record.outcome,
              retryDelayMs: backoffDelay(context.backoff, job.attempts, context.rng),
              // The machine records a failure on a retry or a death only: an `ok` appends none.
              ...(record.failure == null ? {} : { failure: record.failure }),
              now,
            }),
      ],
    })),
    newJob,
    held,
  );
  const accepted = decided.map((d) => answer(d));
  const refused = accepted.filter((a) => !a).length;
  if (refused > 0) await bumpCounter(trx, "job.staleFinishesRefused", refused);
  return accepted;
}

/** Checks a batch of outcomes before anything is written. */
function checkFinishes(finishes: readonly RecordInput[]): void {
  if (!isArray(finishes)) throw new VerqError("VERQ_INVALID_ARGUMENT", "a batch of outcomes must be an array");
  for (const f of finishes) {
    checkIdentifier(f?.id, "a job id");
    checkToken(f.token);
    if (f.outcome !== "failed") checkOutcome(f.outcome);
    if ((f.outcome === "failed" || f.failure != null) && !isJobFailure(f.failure)) {
      throw new VerqError("VERQ_INVALID_ARGUMENT", "a failure is { category, errorClass, code, status }: see describeFailure");
    }
  }
}
