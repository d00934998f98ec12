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
      "serve the dashboard (machines, jobs, queues, schedules, ledger, timelines; acts behind a login) until SIGINT or SIGTERM",
    )
    .addOption(dbOption("SQLite file or postgres:// URL (never created)"))
    .option("--port <n>", "TCP port (0 picks a free one)", "0")
    .option("--host <address>", "IP address to listen on", "127.0.0.1")
    .option("--files <root>", "a file queue whose folders the overview counts")
    .option(
      "--auth-file <path>",
      "a private file (mode 600) with token=… or user=… and password=…: operators who log in can redrive and cancel " +
        "(else VERQ_DASHBOARD_TOKEN, or VERQ_DASHBOARD_USER and VERQ_DASHBOARD_PASSWORD; with neither, read-only)",
    )
    .option("--secure-cookie", "mark the session cookie Secure (the dashboard is reached over HTTPS)")
    .option(
      "--core <url>",
      "the relay's core (POST /transfer, GET /transfer/{guid}): operators who log in can resolve UNKNOWN and reprocess FAILED ledger entries",
    )
    .option("--core-timeout <duration>", "timeout of each call to the core", "10s")
    .option("--min-age <duration>", "the core's longest processing time; younger UNKNOWN entries are not asked about", "1m")
    .option("--max-attempts <n>", "attempt cap per GUID of a reprocess, first send included", "5")
    .addOption(streamsOption())
    .addOption(requestTimeoutOption())
    .addOption(logLevelOption())
    .action(async (o: DashboardOptions) => (await server()).dashboard(context, o));
}
