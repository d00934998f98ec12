import { openStore } from "@verq/store";
import type { Command } from "commander";
import { EXIT } from "./exit-codes.ts";
import { createInventoryReceiver } from "./inventory-receiver.ts";
import { reportError, type CliContext } from "./output.ts";

/** `verq receiver serve`: the idempotent receiver as a process. */
export function registerReceiverCommands(program: Command, context: CliContext): void {
  const receiver = program.command("receiver").description("an idempotent HTTP receiver (key and effect in one transaction)");
  receiver
    .command("serve")
    .description("serve POST / and GET /inventory until SIGINT or SIGTERM")
    .requiredOption("--db <file>", "SQLite file")
    .option("--port <n>", "TCP port (0 picks a free one)", "0")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .action(async (o: { db: string; port: string; host: string }) => {
      try {
        const store = await openStore({ path: o.db });
        const app = await createInventoryReceiver({ store });
        const address = await app.listen({ port: Number(o.port), host: o.host });
        context.io.out(`receiver listening on ${address}`);
        await new Promise<void>((resolve) => {
          process.once("SIGINT", resolve);
          process.once("SIGTERM", resolve);
        });
        await app.close();
        await store.close();
        context.setExitCode(EXIT.ok);
      } catch (error) {
        context.setExitCode(reportError(context.io, false, error));
      }
    });
}
