import fc from "fast-check";
import { fcConfig } from "../fc-config.ts";
import { checkRelay } from "./check-relay.ts";
import { describeAction, runAction } from "./relay-actions.ts";
import { MIN_AGE_MS, scenarioArb, type RelayScenario } from "./relay-scenario.ts";
import { createRelayWorld, type RelayVariant } from "./relay-world.ts";

/** How to run the relay property; every field has a default. */
export interface RunRelayModelOptions {
  /** Name printed with the seed: `[fc] <name> seed=… numRuns=…`. */
  readonly name?: string;
  /** The parts replaced by a mutant; the real relay when omitted. */
  readonly variant?: RelayVariant;
  /** Runs when `FC_NUM_RUNS` is not set: 200. */
  readonly numRuns?: number;
  /**
   * Runs at least this many whatever `FC_NUM_RUNS` says: a mutant test must not pass, or fail,
   * because a quick local run asked for few runs (the search stops at the first failure).
   */
  readonly minRuns?: number;
}

/**
 * The property of the GUID relay (SPEC G1–G9): under arbitrary interleavings (fc.scheduler)
 * of channel sends and concurrent resends, core latencies, lost requests and lost answers,
 * refused connections, relay deaths after the claim, after the core call and after the record,
 * and resolve, reprocess, purge and recovery runs, on a real SQLite ledger: the core processes
 * each GUID at most once, and every answer the channel gets agrees with the ledger (see
 * {@link checkRelay}). A run is phases of concurrent actions; the clock moves between phases.
 * At the end the relay restarts on its SQLite file, the core finishes what it got, the sweep
 * and a reliable resolve settle every entry, and the checks run. Rejects with fast-check's
 * report: seed, path, the scenario, the scheduler's order of tasks, and the `[tag]` of the
 * broken rule.
 */
export async function runRelayModel(options: RunRelayModelOptions = {}): Promise<void> {
  const property = fc.asyncProperty(fc.scheduler(), scenarioArb, async (s, scenario) => {
    const world = await createRelayWorld(s, scenario, options.variant);
    try {
      for (const [index, phase] of scenario.phases.entries()) {
        const tasks = phase.actions.map((action) =>
          s.schedule(Promise.resolve(), `phase ${index + 1}: ${describeAction(action)}`).then(() => runAction(world, action)),
        );
        await s.waitFor(Promise.all(tasks));
        await world.observe();
        world.core.settleDue(world.clock.now() + phase.advanceMs);
        world.clock.advance(phase.advanceMs);
      }
      // Settle: the relay restarts on its file (G8), the core finishes what it got, then the
      // sweep (no relay is alive now) and a reliable resolve.
      await world.restart();
      world.core.settleAll();
      world.core.reliableInquiries = true;
      await s.waitFor(world.relay.recover(0));
      world.clock.advance(MIN_AGE_MS);
      await s.waitFor(world.relay.resolve({ minAgeMs: MIN_AGE_MS }));
      await s.waitFor(world.observe());
      await s.waitFor(checkRelay(world));
    } finally {
      await s.waitIdle();
      await world.close();
    }
  });
  const parameters = fcConfig<[fc.Scheduler, RelayScenario]>(options.name ?? "relay-model", { numRuns: options.numRuns ?? 200 });
  const numRuns = Math.max(parameters.numRuns ?? 0, options.minRuns ?? 0);
  if (numRuns !== parameters.numRuns) console.log(`[fc] ${options.name ?? "relay-model"} numRuns raised to ${numRuns} (minRuns)`);
  await fc.assert(property, { ...parameters, numRuns });
}
