import type { Command } from "commander";
import type { CheckCommandOptions } from "./check-actions.ts";
import { dbOption, jsonOption } from "./options.ts";
import type { CliContext } from "./output.ts";
import { streamsOption } from "./streams-module.ts";

// Loaded when the command runs: the store and its check.
const actions = () => import("./check-actions.ts");

/**
 * `verq check`: an offline audit of a store, like fsck. Exit codes: 0 clean; 1 a finding (one
 * line each), or a store that cannot be used; 2 usage; 4 a SQLite file that does not exist.
 * With `--streams`, the projections of the service's declared stream types are checked too.
 */
export function registerCheckCommands(program: Command, context: CliContext): void {
  program
    .command("check")
    .description(
      "audit a store offline: versions, fencing tokens, accepted finishes, projections against their events, purges, redrive audit rows",
    )
    .addOption(dbOption("SQLite file or postgres:// URL of the store to check (read only)"))
    .option("--batch-size <n>", "events read per page (the check never holds more)", "1000")
    .addOption(streamsOption())
    .addOption(jsonOption('print {"ok","findings":[{code,stream,detail}],"checked"}'))
    .action(async (o: CheckCommandOptions) => (await actions()).check(context, o));
}
