import { ManualClock, seededRng, type JobDecider } from "@verq/core";
import { JobQueue, openStore, type VerqStore } from "@verq/store";
import { withJobDecider } from "@verq/store/internal";
import { MODEL_BACKOFF } from "./jobs-model.ts";

/** The system under test: a real queue over a fresh in-memory SQLite store, on a manual clock. */
export interface JobsReal {
  readonly store: VerqStore;
  readonly queue: JobQueue;
  readonly clock: ManualClock;
}

/** Where the manual clock starts. */
export const MODEL_START_MS = 1_700_000_000_000;

/**
 * Opens a fresh store and a queue over it. `decider` is the mutation-test seam (the real
 * machine when omitted); the redrive rate limit is lifted so that it never masks a refusal.
 */
export async function createJobsReal(options: { rngSeed: number; decider?: JobDecider }): Promise<JobsReal> {
  const store = await openStore({ path: ":memory:" });
  const clock = new ManualClock(MODEL_START_MS);
  const queue = new JobQueue(
    store,
    withJobDecider(
      { clock, rng: seededRng(options.rngSeed), backoff: MODEL_BACKOFF, redriveLimit: { max: 1_000_000, windowMs: 1 } },
      options.decider,
    ),
  );
  return { store, queue, clock };
}
