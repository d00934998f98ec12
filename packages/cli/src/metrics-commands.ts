import { Option, type Command } from "commander";
import type { MetricsServeOptions } from "./metrics-serve.ts";
import { dbOption, jsonOption, logLevelOption, requestTimeoutOption } from "./options.ts";
import type { CliContext } from "./output.ts";

// Loaded when the command runs: the store, fastify and prom-client.
const server = () => import("./metrics-serve.ts");

/** `verq metrics`: the store's (and a file queue's) figures for Prometheus at `GET /metrics`, the declared streams' included. */
export function registerMetricsCommands(program: Command, context: CliContext): void {
  program
    .command("metrics")
    .description(
      "serve Prometheus metrics of the jobs, the GUID ledger, the declared streams and a file queue at GET /metrics until SIGINT or SIGTERM",
    )
    .addOption(dbOption())
    .addOption(new Option("--port <n>", "TCP port (0 picks a free one)").makeOptionMandatory())
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--files <root>", "also count the files in inbox/, processing/ and error/ of this file queue")
    .addOption(jsonOption("print the address as JSON"))
    .addOption(requestTimeoutOption())
    .addOption(logLevelOption())
    .action(async (o: MetricsServeOptions) => (await server()).serve(context, o));
}
