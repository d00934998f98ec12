import fc from "fast-check";
import { GUID_STATES, type GuidDecider } from "@verq/core";
import { commandsReplayPath, fcConfig, searchDefaults, type SearchOptions } from "../fc-config.ts";
import { assertProperty, type RunSummary } from "../property-failure.ts";
import { withFreshDatabase, type PerEngine, type StoreFactory } from "../store-factory.ts";
import { AdvanceClockCommand } from "./advance-clock.command.ts";
import { createLedgerWorld, json } from "./ledger-world.ts";
import { PurgeCommand } from "./purge.command.ts";
import { ReceiveCommand } from "./receive.command.ts";
import { RecordCommand } from "./record.command.ts";
import { RecoverCommand } from "./recover.command.ts";
import { ReprocessCommand } from "./reprocess.command.ts";
import { ResolveCommand } from "./resolve.command.ts";
import { SendCommand } from "./send.command.ts";

/**
 * Runs of the property when neither `numRuns` nor `FC_NUM_RUNS` says. PostgreSQL gets fewer: a
 * run there costs about ten times one on SQLite (a fresh schema and its migrations, a round trip
 * a query), and a suite should take at most about 30 s on a busy two-core machine.
 */
export const LEDGER_MODEL_RUNS: PerEngine<number> = { sqlite: 200, postgres: 40 };

/** How to run the ledger model; every field has a default. */
export interface RunLedgerModelOptions extends SearchOptions {
  /** Where each run gets its fresh database. */
  readonly stores: StoreFactory;
  /** Name printed with the seed: `[fc] <name> seed=… numRuns=…`. */
  readonly name?: string;
  /** The decider the ledger runs (a mutant); the real guid machine when omitted. */
  readonly decider?: GuidDecider;
}

/**
 * The model-based property of the GUID ledger on the one command path: arbitrary sequences of
 * every `GuidLedger` method that writes (receive of new, known and invalid GUIDs with the same or
 * another payload; send; record of every outcome, for the current or an earlier attempt;
 * resolve; reprocess; the recovery sweep; purge, with retentions short and long) and clock moves,
 * each run against a real ledger over a store on a fresh database of `options.stores`. After
 * every call, what the ledger wrote and answered must be what the real `decideGuid` decides for
 * the same command from the same entry (see `checkDecided`): no rule of the ledger lives outside
 * the guid machine. At the end a rebuild from the log must give the model's entries. Rejects
 * with a `PropertyFailed`: fast-check's report, with the `[tag]` of the broken property, and the
 * counterexample, to replay elsewhere.
 */
export async function runLedgerModel(options: RunLedgerModelOptions): Promise<RunSummary> {
  const replayPath = commandsReplayPath(options);
  const commands = [
    // Weighted towards the moves that take an entry through its life, so that most runs reach DONE and purge.
    ReceiveCommand.arbitrary(),
    ReceiveCommand.arbitrary(),
    SendCommand.arbitrary(),
    SendCommand.arbitrary(),
    RecordCommand.arbitrary(),
    RecordCommand.arbitrary(),
    RecordCommand.arbitrary(),
    ResolveCommand.arbitrary(),
    ResolveCommand.arbitrary(),
    ReprocessCommand.arbitrary(),
    RecoverCommand.arbitrary(),
    PurgeCommand.arbitrary(),
    PurgeCommand.arbitrary(),
    AdvanceClockCommand.arbitrary(),
    AdvanceClockCommand.arbitrary(),
  ];
  const property = fc.asyncProperty(
    fc.commands(commands, { maxCommands: 50, size: "max", ...(replayPath === undefined ? {} : { replayPath }) }),
    (cmds) =>
      withFreshDatabase(options.stores, async (database) => {
        const world = await createLedgerWorld(database, options.decider);
        try {
          await fc.asyncModelRun(() => ({ model: world, real: world }), cmds);
          await world.ledger.rebuild();
          const rebuilt = await world.ledger.list(GUID_STATES, 10_000);
          const model = [...world.entries.values()].sort((a, b) => a.updatedAt - b.updatedAt || (a.guid < b.guid ? -1 : 1));
          if (json(rebuilt) !== json(model))
            throw new Error("[rebuild] the ledger rebuilt from its events differs from the model");
        } finally {
          await world.store.close();
        }
      }),
  );
  return assertProperty(
    property,
    fcConfig(options.name ?? "ledger-model", searchDefaults(options, LEDGER_MODEL_RUNS[options.stores.engine])),
  );
}
