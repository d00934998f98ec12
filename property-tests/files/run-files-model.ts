import fc from "fast-check";
import type { MessageDecider } from "@verq/core";
import { commandsReplayPath, fcConfig, searchDefaults, type SearchOptions } from "../fc-config.ts";
import { assertProperty, type RunSummary } from "../property-failure.ts";
import { withFreshDatabase, type PerEngine, type StoreFactory } from "../store-factory.ts";
import { createFilesWorld } from "./files-world.ts";
import { ReplayCommand } from "./replay.command.ts";
import { SettleCommand } from "./settle.command.ts";

/**
 * Runs of the property when neither `numRuns` nor `FC_NUM_RUNS` says. PostgreSQL gets fewer: a
 * run there costs about ten times one on SQLite (a fresh schema and its migrations, a round trip
 * a query), and a suite should take at most about 30 s on a busy two-core machine.
 */
export const FILES_MODEL_RUNS: PerEngine<number> = { sqlite: 200, postgres: 40 };

/** How to run the file-queue model; every field has a default. */
export interface RunFilesModelOptions extends SearchOptions {
  /** Where each run gets its fresh database. */
  readonly stores: StoreFactory;
  /** Name printed with the seed: `[fc] <name> seed=… numRuns=…`. */
  readonly name?: string;
  /** The decider the ledger runs (a mutant); the real message machine when omitted. */
  readonly decider?: MessageDecider;
}

/**
 * The model-based property of the file ledger on the one command path: arbitrary sequences of
 * settles (new claims, claims settled again, valid and invalid verdicts, names met again, names
 * that are no file's, an error copy or not) and replays, each run against a real `FileLedger`
 * over a store on a fresh database of `options.stores`. After every call, what the ledger wrote
 * and answered must be what the real `decideMessage` decides for the same command from the same
 * message (see `checkDecided`): no rule of the file queue lives outside the message machine. At
 * the end a rebuild from the log must give the live tables. Rejects with a `PropertyFailed`:
 * fast-check's report, with the `[tag]` of the broken property, and the counterexample, to
 * replay elsewhere.
 */
export async function runFilesModel(options: RunFilesModelOptions): Promise<RunSummary> {
  const replayPath = commandsReplayPath(options);
  const commands = [SettleCommand.arbitrary(), SettleCommand.arbitrary(), ReplayCommand.arbitrary()];
  const property = fc.asyncProperty(
    fc.commands(commands, { maxCommands: 30, size: "max", ...(replayPath === undefined ? {} : { replayPath }) }),
    (cmds) =>
      withFreshDatabase(options.stores, async (database) => {
        const world = await createFilesWorld(database, options.decider);
        try {
          await fc.asyncModelRun(() => ({ model: world, real: world }), cmds);
          const snapshot = async () =>
            JSON.stringify({ processed: await world.ledger.processed(), duplicates: await world.ledger.duplicates() });
          const live = await snapshot();
          await world.ledger.rebuild();
          if ((await snapshot()) !== live)
            throw new Error("[rebuild] the rebuilt processed and duplicates differ from the live ones");
          for (const [id, message] of world.messages) {
            if (JSON.stringify(await world.ledger.get(id)) !== JSON.stringify(message))
              throw new Error(`[rebuild] stream ${id} folds to another message than the model's`);
          }
        } finally {
          await world.store.close();
        }
      }),
  );
  return assertProperty(
    property,
    fcConfig(options.name ?? "files-model", searchDefaults(options, FILES_MODEL_RUNS[options.stores.engine])),
  );
}
