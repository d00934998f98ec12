import type { Command } from "commander";
import { dbOption, parseWholeNumber, runCommand, untilStopSignal, withStore } from "./common.ts";
import { createInventoryReceiver } from "./inventory-receiver.ts";
import type { CliContext } from "./output.ts";

/** `verq receiver serve`: the idempotent receiver as a process. */
export function registerReceiverCommands(program: Command, context: CliContext): void {
  const receiver = program.command("receiver").description("an idempotent HTTP receiver (key and effect in one transaction)");
  receiver
    .command("serve")
    .description("serve POST / and GET /inventory until SIGINT or SIGTERM")
    .addOption(dbOption())
    .option("--port <n>", "TCP port (0 picks a free one)", "0")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .action((o: { db: string; port: string; host: string }) =>
      runCommand(context, {}, () => {
        // Checked before the database is opened: a bad port creates nothing.
        const port = parseWholeNumber(o.port, "--port", { max: 65_535 });
        return withStore(o.db, async (store) => {
          const app = await createInventoryReceiver({ store });
          const address = await app.listen({ port, host: o.host });
          context.io.out(`receiver listening on ${address}`);
          await untilStopSignal();
          await app.close();
        });
      }),
    );
}
