import {
  VerqError,
  jobCommands,
  type Clock,
  type JobDecider,
  type JobEvent,
  type JobState,
  type JobStreamState,
} from "@verq/core";
import { commitChanges, decideCandidates, type StreamProjection } from "./command-path.ts";
import type { VerqStore } from "./store.ts";
import { countUnfinishedBefore } from "./sql/jobs/countUnfinishedBefore.ts";
import { selectPruneCandidates, type PruneCursor } from "./sql/jobs/selectPruneCandidates.ts";

/** What to prune. Ages are in milliseconds: a job finished at or before `now - age` is old enough. */
export interface PruneOptions {
  /** Done jobs finished at least this long ago are pruned. */
  readonly doneOlderThan: number;
  /** Dead jobs dead at least this long ago are pruned too; without it, dead jobs are kept. */
  readonly deadOlderThan?: number;
  /** Jobs looked at per batch, each batch its own transaction: 500 by default, at most 10,000. */
  readonly batchSize?: number;
  /** Count what would be pruned, and write nothing. */
  readonly dryRun?: boolean;
}

/** What a prune did (or, with `dryRun`, would do). */
export interface PruneResult {
  /** Jobs pruned (archived, their streams and rows deleted), by final state. */
  readonly pruned: { readonly done: number; readonly dead: number };
  /** Events deleted with them (with `dryRun`: that would be). */
  readonly events: number;
  /**
   * Jobs last changed at or before the oldest cutoff that were kept, by state: done and dead ones
   * the machine refused, and every pending and leased one (never offered: the machine refuses them).
   */
  readonly kept: Readonly<Record<JobState, number>>;
  /** Transactions that pruned at least one job. */
  readonly batches: number;
  readonly dryRun: boolean;
  /** The cutoffs used: absolute times (ms). */
  readonly doneCutoff: number;
  readonly deadCutoff: number | null;
}

export const MAX_PRUNE_BATCH = 10_000;

/**
 * Retention of finished jobs, in bounded batches: every job last changed at or before the
 * oldest cutoff, oldest first, gets one `job.prune` decided by the job machine, which accepts
 * done jobs finished at or before the done cutoff and dead ones at or before the dead cutoff
 * (when one is given); the scan reads finished jobs only (the machine refuses every pending and
 * leased job), which are counted as kept. The accepted ones of a batch are
 * archived, audited and deleted with their streams in one transaction (see `jobStream`); a
 * rerun continues where an interrupted one stopped, since pruned jobs are gone. With `dryRun`
 * the same decisions are made and nothing is written. Bad options throw `VERQ_INVALID_ARGUMENT`
 * before anything is read.
 */
export async function pruneJobs(
  store: VerqStore,
  decide: JobDecider,
  jobs: StreamProjection<JobStreamState, JobEvent>,
  clock: Clock,
  options: PruneOptions,
): Promise<PruneResult> {
  const doneOlderThan = checkAge(options?.doneOlderThan, "doneOlderThan");
  const deadOlderThan = options.deadOlderThan === undefined ? null : checkAge(options.deadOlderThan, "deadOlderThan");
  const batchSize = options.batchSize ?? 500;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > MAX_PRUNE_BATCH)
    throw new VerqError("VERQ_INVALID_ARGUMENT", `batchSize must be a whole number from 1 to ${MAX_PRUNE_BATCH}`);
  const dryRun = options.dryRun === true;
  const now = clock.now();
  const doneCutoff = now - doneOlderThan;
  const deadCutoff = deadOlderThan === null ? null : now - deadOlderThan;
  const scanCutoff = Math.max(doneCutoff, deadCutoff ?? Number.MIN_SAFE_INTEGER);
  const command = jobCommands.prune({ doneCutoff, deadCutoff, now });
  const pruned = { done: 0, dead: 0 };
  const kept: Record<JobState, number> = { pending: 0, leased: 0, done: 0, dead: 0 };
  let events = 0;
  let batches = 0;
  let cursor: PruneCursor | null = null;
  for (;;) {
    const scan = async (trx: VerqStore["db"]) => {
      const candidates = await selectPruneCandidates(trx, scanCutoff, batchSize, cursor);
      // What the machine refuses to prune is kept: every refusal is an answer, none ends the scan.
      const { changes, refused } = decideCandidates(decide, candidates, () => [command]);
      if (!dryRun) await commitChanges(trx, store.dialect, jobs, changes);
      return { candidates, changes, keptHere: refused };
    };
    const batch = dryRun ? await scan(store.db) : await store.transaction(scan);
    for (const { before } of batch.changes) {
      if (before.state === "dead") pruned.dead++;
      else pruned.done++;
      events += before.version;
    }
    if (!dryRun && batch.changes.length > 0) batches++;
    for (const { state: job } of batch.keptHere) kept[job.state]++;
    const last = batch.candidates.at(-1);
    if (last === undefined || batch.candidates.length < batchSize) break;
    cursor = { updatedAt: last.updatedAt, id: last.id };
  }
  const unfinished = await countUnfinishedBefore(store.db, scanCutoff);
  kept.pending += unfinished.pending;
  kept.leased += unfinished.leased;
  return { pruned, events, kept, batches, dryRun, doneCutoff, deadCutoff };
}

function checkAge(ms: unknown, what: string): number {
  if (typeof ms !== "number" || !Number.isSafeInteger(ms) || ms < 0)
    throw new VerqError("VERQ_INVALID_ARGUMENT", `${what} must be a whole, non-negative number of milliseconds`);
  return ms;
}
