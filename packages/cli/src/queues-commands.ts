import { Option, type Command } from "commander";
import type { LimitOptions } from "./queues-actions.ts";
import { dbOption, jsonOption } from "./options.ts";
import type { CliContext } from "./output.ts";

// Loaded when a command runs: the store.
const actions = () => import("./queues-actions.ts");

/** `verq queues …`: the settings of named queues. */
export function registerQueuesCommands(program: Command, context: CliContext): void {
  const queues = program.command("queues").description("named job queues: their global concurrency limits");

  queues
    .command("limit")
    .description("set a queue's global concurrency limit: at most N of its jobs leased at once, across every process and host")
    .argument("<name>", "queue name")
    .addOption(dbOption())
    .addOption(new Option("--max-leased <n>", "the most jobs of the queue leased at once (1-1000000)").conflicts("none"))
    .option("--none", "remove the limit")
    .addOption(jsonOption())
    .action(async (name: string, o: LimitOptions) => (await actions()).limit(context, name, o));
}
