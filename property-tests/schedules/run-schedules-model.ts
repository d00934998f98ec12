import fc from "fast-check";
import type { ScheduleDecider } from "@verq/core";
import { commandsReplayPath, fcConfig, searchDefaults, type SearchOptions } from "../fc-config.ts";
import { assertProperty, type RunSummary } from "../property-failure.ts";
import { withFreshDatabase, type PerEngine, type StoreFactory } from "../store-factory.ts";
import { AdvanceClockCommand } from "./advance-clock.command.ts";
import { checkSlots } from "./check-slots.ts";
import { RunDueCommand } from "./run-due.command.ts";
import { SchedulesModel, createSchedulesReal } from "./schedules-world.ts";

/** Runs per engine when `FC_NUM_RUNS` is not set. */
export const SCHEDULES_MODEL_RUNS: PerEngine<number> = { sqlite: 60, postgres: 15 };

/** Options of {@link runSchedulesModel}. */
export interface RunSchedulesModelOptions extends SearchOptions {
  readonly stores: StoreFactory;
  readonly name?: string;
  /** The decider under test (a mutant); the real schedule machine when omitted. */
  readonly decider?: ScheduleDecider;
}

/**
 * The schedules model: three schedulers on three stores over one database interleave `runDue`
 * calls (some at once) while the clock moves (by 1 ms, onto slot boundaries, or by hours of
 * downtime). After every command each slot has at most one job, and the jobs are exactly the
 * slots the missed-slot policy names (see `checkSlots`).
 */
export async function runSchedulesModel(options: RunSchedulesModelOptions): Promise<RunSummary> {
  const name = options.name ?? "schedules-model";
  const replayPath = commandsReplayPath(options);
  const property = fc.asyncProperty(
    fc.commands([AdvanceClockCommand.arbitrary(), RunDueCommand.arbitrary()], {
      maxCommands: 25,
      ...(replayPath === undefined ? {} : { replayPath }),
    }),
    (commands) =>
      withFreshDatabase(options.stores, async (database) => {
        const real = await createSchedulesReal(database, options.decider);
        try {
          const model = new SchedulesModel(real.clock.now());
          await checkSlots(model, real);
          await fc.asyncModelRun(() => ({ model, real }), commands);
        } finally {
          for (const store of real.stores) await store.close();
        }
      }),
  );
  return assertProperty(property, fcConfig(name, searchDefaults(options, SCHEDULES_MODEL_RUNS[options.stores.engine])));
}
