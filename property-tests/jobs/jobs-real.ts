import { seededRng, type JobDecider, type Rng } from "@verq/core";
import { JobQueue, type ClaimCandidates, type VerqStore } from "@verq/store";
import type { TestDatabase } from "@verq/testing";
import { MODEL_BACKOFF } from "./jobs-model.ts";
import { WallClock } from "./wall-clock.ts";

/** The system under test: a real queue over a store on a fresh database, on a manual clock that may jump. */
export interface JobsReal {
  readonly store: VerqStore;
  readonly queue: JobQueue;
  readonly clock: WallClock;
  /** A twin of the queue's jitter source (same seed), drawn in step with it: one draw per finish, in input order. */
  readonly twin: Rng;
}

/** Where the manual clock starts. */
export const MODEL_START_MS = 1_700_000_000_000;

/**
 * The redrive rate limit of the queue under test: one per 100 ms, so that a second redrive
 * soon after the first is refused (J7) often enough to be seen.
 */
export const MODEL_REDRIVE_LIMIT = { max: 1, windowMs: 100 } as const;

/**
 * Opens a store on `database` (fresh for the run; the caller closes the store and disposes the
 * database) and a queue over it. `decider` and `claimCandidates` are the queue's parts a mutant
 * replaces (the real machine and the store's candidate query when omitted).
 */
export async function createJobsReal(options: {
  database: TestDatabase;
  rngSeed: number;
  decider?: JobDecider;
  claimCandidates?: ClaimCandidates;
}): Promise<JobsReal> {
  const store = await options.database.open();
  const clock = new WallClock(MODEL_START_MS);
  const queue = new JobQueue(store, {
    clock,
    rng: seededRng(options.rngSeed),
    backoff: MODEL_BACKOFF,
    redriveLimit: MODEL_REDRIVE_LIMIT,
    decider: options.decider,
    claimCandidates: options.claimCandidates,
  });
  return { store, queue, clock, twin: seededRng(options.rngSeed) };
}
