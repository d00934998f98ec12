import type { Command } from "commander";
import { dbOption, jsonOption, type DbOptions } from "./options.ts";
import type { CliContext } from "./output.ts";

// Loaded when the command runs: the store.
const actions = () => import("./init-actions.ts");

/**
 * `verq init`: creates a store (the SQLite file, or verq's tables in the PostgreSQL database) and
 * brings it up to date, and says what it did. The one command that exists to create a store;
 * the commands that only read never do. Exit codes: 0 done (also: already up to date); 1 a store
 * that cannot be used (`VERQ_STORE_UNREACHABLE`, `VERQ_TABLE_CONFLICT`, …); 2 usage; 4 a SQLite
 * file in a folder that does not exist.
 */
export function registerInitCommands(program: Command, context: CliContext): void {
  program
    .command("init")
    .description("create the store (a SQLite file, or verq's tables in a PostgreSQL database) and migrate it; says what it did")
    .addOption(dbOption("SQLite file or postgres:// URL of the store to create"))
    .addOption(jsonOption('print {"db","schema","created","applied":[…],"tables":[…]}'))
    .action(async (o: DbOptions) => (await actions()).init(context, o));
}
