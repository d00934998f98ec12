import {
  VerqError,
  checkIdentifier,
  checkTime,
  endsRedriveSweep,
  jobCommands,
  sweepSkippedReasons,
  type DeadReason,
  type JobCommand,
} from "@verq/core";
import { pruneJobs, type PruneOptions, type PruneResult } from "../job-retention.ts";
import { countRedrivesSince } from "../sql/jobs/countRedrivesSince.ts";
import { selectJobsByState } from "../sql/jobs/selectJobsByState.ts";
import { selectOriginalWindow } from "../sql/jobs/selectOriginalWindow.ts";
import { checkSeenVersion, jobUnchangedSince, type SeenVersion } from "../seen-version.ts";
import { answer, handleJobs, type DecidedJob, type JobContext } from "./job-context.ts";

/** The audit record of one redrive. */
export interface RedriveRecord {
  readonly jobId: string;
  readonly previousToken: number;
  readonly at: number;
  readonly note: string;
  readonly deadline: number;
}

/**
 * What a cancel did: the job cancelled (dead with reason `cancelled`; `state` is the state it
 * was cancelled in, `previousToken` the token it keeps), or refused by the machine because it
 * had already ended (`not-cancellable`: done or dead; `state` says which).
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
 * Puts a dead job back to pending (SPEC J6), as the job machine decides from the facts gathered
 * in one transaction (the recent redrives, counted while redrives take turns, and the job's
 * original window), writing the audit row in the same transaction. Throws the refusal's coded
 * error (`VERQ_NOT_DEAD`, `VERQ_INVALID_NOTE`, `VERQ_INVALID_DEADLINE`, `VERQ_UNKNOWN_JOB`,
 * `VERQ_REDRIVE_RATE_LIMITED`), changing nothing.
 */
export async function redriveJob(
  context: JobContext,
  id: string,
  options: { note: string; deadline?: number } & SeenVersion,
): Promise<RedriveRecord> {
  const attempt = await attemptRedrive(context, id, options);
  if ("record" in attempt) return attempt.record;
  answer(attempt.refused, attempt.command);
  throw new VerqError("VERQ_UNEXPECTED", `the redrive of ${id} wrote no job.redriven`);
}

/** One redrive in a transaction of its own: its record, or the machine's refusal with nothing written. */
type RedriveAttempt =
  | { readonly record: RedriveRecord }
  | { readonly refused: DecidedJob & { readonly decision: { readonly accepted: false } }; readonly command: JobCommand };

async function attemptRedrive(
  context: JobContext,
  id: string,
  options: { note: string; deadline?: number } & SeenVersion,
): Promise<RedriveAttempt> {
  checkIdentifier(id, "a job id");
  checkSeenVersion(options?.expectedVersion);
  if (options?.deadline !== undefined) checkTime(options.deadline, "the deadline");
  const { store, redriveLimit } = context;
  return store.transaction(async (trx): Promise<RedriveAttempt> => {
    // Redrives take turns, so that the count of recent ones below is the count the limit judges.
    await store.dialect.statements.exclusive(trx, "job.redrive");
    const now = context.clock.now();
    const command = jobCommands.redrive({
      note: options?.note,
      deadline: options?.deadline ?? null,
      recentRedrives: await countRedrivesSince(trx, now - redriveLimit.windowMs + 1),
      limit: redriveLimit,
      originalWindowMs: (await selectOriginalWindow(trx, id)) ?? 0,
      now,
    });
    const [decided] = await handleJobs(context, trx, [{ id, commands: [command] }]);
    if (decided === undefined) throw new Error("no decision for one redrive");
    const { before, decision } = decided;
    jobUnchangedSince(options?.expectedVersion, id, before.version);
    if (!decision.accepted) return { refused: { before, decision }, command };
    const event = decision.events.find((e) => e.type === "job.redriven");
    if (event?.type !== "job.redriven") throw new VerqError("VERQ_UNEXPECTED", `the redrive of ${id} wrote no job.redriven`);
    const { previousToken, note, deadline } = event.data;
    await store.announce(trx, "jobs");
    return { record: { jobId: id, previousToken, at: now, note, deadline } };
  });
}

/**
 * Cancels a pending or leased job as the job machine decides: dead with reason `cancelled`, its
 * note and time in its `job.cancelled` event; a job that already ended is refused as
 * `not-cancellable`, changing nothing. Throws `VERQ_UNKNOWN_JOB` and `VERQ_INVALID_NOTE`,
 * changing nothing.
 */
export async function cancelJob(context: JobContext, id: string, options: { note: string } & SeenVersion): Promise<CancelResult> {
  checkIdentifier(id, "a job id");
  checkSeenVersion(options?.expectedVersion);
  return context.store.transaction(async (trx) => {
    const command = jobCommands.cancel({ note: options?.note, now: context.clock.now() });
    const [decided] = await handleJobs(context, trx, [{ id, commands: [command] }]);
    if (decided === undefined) throw new Error("no decision for one cancel");
    const { before, decision } = decided;
    jobUnchangedSince(options?.expectedVersion, id, before.version);
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
 * Redrives dead jobs (optionally of one reason), oldest first, each as {@link redriveJob}, as far
 * as the rate limit allows; what the limit holds back is reported as `deferred`. The reasons a
 * sweep passes over, and the refusal that ends it, are core's rules (`sweepSkippedReasons`:
 * cancelled, unless asked for; `endsRedriveSweep`: the limit reached).
 */
export async function redriveDead(
  context: JobContext,
  options: { note: string; reason?: DeadReason; max?: number; deadline?: number },
): Promise<{ redriven: RedriveRecord[]; deferred: number }> {
  const dead = await selectJobsByState(context.store.db, "dead", options.max ?? 10_000, {
    reason: options.reason,
    exceptReasons: sweepSkippedReasons(options.reason),
  });
  const redriven: RedriveRecord[] = [];
  // One transaction per job, not one decision over the list: each redrive is decided from the
  // recent redrives counted while redrives take turns, which the one before it changed.
  const input = options.deadline === undefined ? { note: options.note } : { note: options.note, deadline: options.deadline };
  for (const job of dead) {
    const attempt = await attemptRedrive(context, job.id, input);
    if ("record" in attempt) {
      redriven.push(attempt.record);
      continue;
    }
    // The machine's refusal, not its coded error, tells whether the rest of the sweep must wait.
    if (endsRedriveSweep(attempt.refused.decision.refusal)) break;
    answer(attempt.refused, attempt.command);
    throw new VerqError("VERQ_UNEXPECTED", `the redrive of ${job.id} wrote no job.redriven`);
  }
  return { redriven, deferred: dead.length - redriven.length };
}

/** Retention of finished jobs in batches, each job decided by the job machine (see `pruneJobs`). */
export async function pruneFinishedJobs(context: JobContext, options: PruneOptions): Promise<PruneResult> {
  return pruneJobs(context.store, context.decide, context.jobs, context.clock, options);
}
