import type { Command } from "commander";
import { dbOption, logLevelOption, requestTimeoutOption } from "./options.ts";
import type { CliContext } from "./output.ts";
import type { ReceiverServeOptions } from "./receiver-serve.ts";

// Loaded when the command runs: the store, fastify and zod.
const server = () => import("./receiver-serve.ts");

/** `verq receiver serve`: the idempotent receiver as a process. */
export function registerReceiverCommands(program: Command, context: CliContext): void {
  const receiver = program.command("receiver").description("an idempotent HTTP receiver (key and effect in one transaction)");
  receiver
    .command("serve")
    .description("serve POST / and GET /inventory until SIGINT or SIGTERM")
    .addOption(dbOption())
    .option("--port <n>", "TCP port (0 picks a free one)", "0")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .addOption(requestTimeoutOption())
    .addOption(logLevelOption())
    .action(async (o: ReceiverServeOptions) => (await server()).serve(context, o));
}
