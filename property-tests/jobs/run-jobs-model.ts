import fc from "fast-check";
import type { JobDecider } from "@verq/core";
import { commandsReplayPath, fcConfig } from "../fc-config.ts";
import { checkInvariants } from "./check-invariants.ts";
import { checkRebuild } from "./check-rebuild.ts";
import { jobsCommands } from "./jobs-commands.ts";
import { JobsModel } from "./jobs-model.ts";
import { createJobsReal } from "./jobs-real.ts";

/** How to run the jobs model; every field has a default. */
export interface RunJobsModelOptions {
  /** Name printed with the seed: `[fc] <name> seed=… numRuns=…`. */
  readonly name?: string;
  /** The decider under test (a mutant); the real job machine when omitted. */
  readonly decider?: JobDecider;
  /** Runs when `FC_NUM_RUNS` is not set: 300. */
  readonly numRuns?: number;
  /** Longest command sequence per run: 50 (lengths drawn up to it: `size: "max"`; the default small size left most runs too short to reach a finish). */
  readonly maxCommands?: number;
}

/**
 * The model-based property of the job queue (SPEC J1–J6): arbitrary interleavings of enqueues,
 * claims by several workers, finishes with current, stale and forged tokens, heartbeats, clock
 * moves onto lease boundaries, worker deaths and redrives, each run against a fresh SQLite
 * store and checked against {@link JobsModel} after every command (see `checkInvariants`), then
 * a projection rebuild at the end (`checkRebuild`). Rejects with fast-check's report (seed,
 * path, counterexample, and the `[property]`-tagged message of the broken rule).
 */
export async function runJobsModel(options: RunJobsModelOptions = {}): Promise<void> {
  const name = options.name ?? "jobs-model";
  const replayPath = commandsReplayPath();
  const property = fc.asyncProperty(
    fc.nat(),
    fc.commands(jobsCommands(), {
      maxCommands: options.maxCommands ?? 50,
      size: "max",
      ...(replayPath === undefined ? {} : { replayPath }),
    }),
    async (rngSeed, commands) => {
      const real = await createJobsReal({ rngSeed, ...(options.decider === undefined ? {} : { decider: options.decider }) });
      try {
        const model = new JobsModel(real.clock.now());
        await checkInvariants(model, real);
        await fc.asyncModelRun(() => ({ model, real }), commands);
        await checkRebuild(real);
      } finally {
        await real.store.close();
      }
    },
  );
  await fc.assert(property, fcConfig(name, { numRuns: options.numRuns ?? 300 }));
}
