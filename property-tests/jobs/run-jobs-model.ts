import fc from "fast-check";
import type { JobDecider } from "@verq/core";
import type { ClaimCandidates } from "@verq/store";
import { commandsReplayPath, fcConfig, searchDefaults, type SearchOptions } from "../fc-config.ts";
import { assertProperty, type RunSummary } from "../property-failure.ts";
import { withFreshDatabase, type PerEngine, type StoreFactory } from "../store-factory.ts";
import { checkInvariants } from "./check-invariants.ts";
import { checkRebuild } from "./check-rebuild.ts";
import { checkStoreClean } from "./check-store-clean.ts";
import { jobsCommands } from "./jobs-commands.ts";
import { JobsModel } from "./jobs-model.ts";
import { createJobsReal } from "./jobs-real.ts";

/**
 * Runs of the property when neither `numRuns` nor `FC_NUM_RUNS` says. PostgreSQL gets fewer: a
 * run there costs about ten times one on SQLite (a fresh schema and its migrations, a round trip
 * a query), and a suite should take at most about 30 s on a busy two-core machine.
 */
export const JOBS_MODEL_RUNS: PerEngine<number> = { sqlite: 300, postgres: 30 };

/** How to run the jobs model; every field has a default. */
export interface RunJobsModelOptions extends SearchOptions {
  /** Where each run gets its fresh database. */
  readonly stores: StoreFactory;
  /** Name printed with the seed: `[fc] <name> seed=… numRuns=…`. */
  readonly name?: string;
  /** The decider under test (a mutant); the real job machine when omitted. */
  readonly decider?: JobDecider;
  /** The claim candidate query under test (a mutant); the store's own when omitted. */
  readonly claimCandidates?: ClaimCandidates;
  /** Longest command sequence per run: 50 (lengths drawn up to it: `size: "max"`; the default small size left most runs too short to reach a finish). */
  readonly maxCommands?: number;
}

/**
 * The model-based property of the job queue (SPEC J1–J6, K1): arbitrary interleavings of enqueues
 * (some of a kind), claims by several workers (some limited to kinds), finishes and failure
 * reports with current, stale and forged tokens, heartbeats, clock
 * moves onto lease boundaries, worker deaths, redrives and prunes (retention), each run against a
 * store on a fresh database of `options.stores` and checked against {@link JobsModel} after every
 * command (see `checkInvariants`), then a projection rebuild (`checkRebuild`) and `verq check`
 * (`checkStoreClean`, also after every prune that removed a job) at the end. Rejects with a
 * `PropertyFailed`: fast-check's report (seed, path, counterexample, and the
 * `[property]`-tagged message of the broken rule) and the counterexample, to replay elsewhere.
 */
export async function runJobsModel(options: RunJobsModelOptions): Promise<RunSummary> {
  const name = options.name ?? "jobs-model";
  const replayPath = commandsReplayPath(options);
  const property = fc.asyncProperty(
    fc.nat(),
    fc.commands(jobsCommands(), {
      maxCommands: options.maxCommands ?? 50,
      size: "max",
      ...(replayPath === undefined ? {} : { replayPath }),
    }),
    (rngSeed, commands) =>
      withFreshDatabase(options.stores, async (database) => {
        const decider = options.decider === undefined ? {} : { decider: options.decider };
        const candidates = options.claimCandidates === undefined ? {} : { claimCandidates: options.claimCandidates };
        const real = await createJobsReal({ database, rngSeed, ...decider, ...candidates });
        try {
          const model = new JobsModel(real.clock.now());
          await checkInvariants(model, real);
          await fc.asyncModelRun(() => ({ model, real }), commands);
          await checkRebuild(real);
          await checkStoreClean(real, "verq check");
        } finally {
          await real.store.close();
        }
      }),
  );
  return assertProperty(property, fcConfig(name, searchDefaults(options, JOBS_MODEL_RUNS[options.stores.engine])));
}
