import type { Command } from "commander";
import type { DashboardOptions } from "./dashboard-serve.ts";
import { dbOption, logLevelOption, requestTimeoutOption } from "./options.ts";
import type { CliContext } from "./output.ts";
import { streamsOption } from "./streams-module.ts";

// Loaded when the command runs: the store, fastify and dagre.
const server = () => import("./dashboard-serve.ts");

/** `verq dashboard`: the read-only dashboard as a process. */
export function registerDashboardCommands(program: Command, context: CliContext): void {
  program
    .command("dashboard")
    .description(
      "serve a read-only dashboard (machines, declared streams, dead letters, ledger, timelines) until SIGINT or SIGTERM",
    )
    .addOption(dbOption("SQLite file or postgres:// URL (never created)"))
    .option("--port <n>", "TCP port (0 picks a free one)", "0")
    .option("--host <address>", "IP address to listen on", "127.0.0.1")
    .option("--files <root>", "a file queue whose folders the overview counts")
    .addOption(streamsOption())
    .addOption(requestTimeoutOption())
    .addOption(logLevelOption())
    .action(async (o: DashboardOptions) => (await server()).dashboard(context, o));
}
