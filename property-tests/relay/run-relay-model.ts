import fc from "fast-check";
import type { TestDatabase } from "@verq/testing";
import { fcConfig, searchDefaults, type SearchOptions } from "../fc-config.ts";
import { assertProperty, type RunSummary } from "../property-failure.ts";
import { withFreshDatabase, type PerEngine, type StoreFactory } from "../store-factory.ts";
import { checkRelay } from "./check-relay.ts";
import { describeAction, runAction } from "./relay-actions.ts";
import { MIN_AGE_MS, scenarioArb, type RelayScenario } from "./relay-scenario.ts";
import { createRelayWorld, type RelayVariant } from "./relay-world.ts";

/**
 * Runs of the property when neither `numRuns` nor `FC_NUM_RUNS` says. PostgreSQL gets fewer: a
 * run there costs about ten times one on SQLite (a fresh schema and its migrations, a round trip
 * a query), and a suite should take at most about 30 s on a busy two-core machine.
 */
export const RELAY_MODEL_RUNS: PerEngine<number> = { sqlite: 200, postgres: 40 };

/** How to run the relay property; every field has a default. */
export interface RunRelayModelOptions extends SearchOptions {
  /**
   * Where each run gets its fresh database: with one connection (`oneConnection`), or on
   * PostgreSQL the server's timing, which no seed records, takes part in the interleaving and a
   * failing seed may not replay.
   */
  readonly stores: StoreFactory;
  /** Name printed with the seed: `[fc] <name> seed=… numRuns=…`. */
  readonly name?: string;
  /** The parts replaced by a mutant; the real relay when omitted. */
  readonly variant?: RelayVariant;
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
 * and resolve, reprocess, purge and recovery runs, on a real ledger over a fresh database of
 * `options.stores`: the core processes each GUID at most once, and every answer the channel gets
 * agrees with the ledger (see {@link checkRelay}). A run is phases of concurrent actions; the
 * clock moves between phases. At the end the relay restarts on its database, the core finishes
 * what it got, the sweep and a reliable resolve settle every entry, and the checks run. Rejects
 * with a `PropertyFailed`: fast-check's report (seed, path, the scenario, the scheduler's order
 * of tasks, and the `[tag]` of the broken rule) and the counterexample, to replay elsewhere.
 */
export async function runRelayModel(options: RunRelayModelOptions): Promise<RunSummary> {
  const property = fc.asyncProperty(fc.scheduler(), scenarioArb, (s, scenario) =>
    withFreshDatabase(options.stores, (database) => runScenario(database, s, scenario, options.variant)),
  );
  const name = options.name ?? "relay-model";
  const parameters = fcConfig<[fc.Scheduler, RelayScenario]>(
    name,
    searchDefaults(options, RELAY_MODEL_RUNS[options.stores.engine]),
  );
  const numRuns = Math.max(parameters.numRuns ?? 0, options.minRuns ?? 0);
  if (numRuns !== parameters.numRuns) console.log(`[fc] ${name} numRuns raised to ${numRuns} (minRuns)`);
  return assertProperty(property, { ...parameters, numRuns });
}

/** One run of the property on `database`. */
async function runScenario(
  database: TestDatabase,
  s: fc.Scheduler,
  scenario: RelayScenario,
  variant?: RelayVariant,
): Promise<void> {
  const world = await createRelayWorld(database, s, scenario, variant);
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
    // Settle: the relay restarts on its database (G8), the core finishes what it got, then the
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
}
