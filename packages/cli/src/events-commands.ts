import type { Command } from "commander";
import type { EventsOptions } from "./events-actions.ts";
import { dbOption } from "./options.ts";
import type { CliContext } from "./output.ts";
import { streamsOption } from "./streams-module.ts";

// Loaded when the command runs: the store and its subscriptions.
const actions = () => import("./events-actions.ts");

/**
 * `verq events`: the event log as NDJSON, from a position or from a named subscriber's
 * checkpoint, then (with `--follow`) live until SIGINT or SIGTERM; with `--streams`, the
 * service's declared stream types too, their events upcast. Exit codes: 0 done or
 * stopped by a signal; 1 a store that cannot be used or a failed write; 2 usage; 4 a SQLite
 * file that does not exist.
 */
export function registerEventsCommands(program: Command, context: CliContext): void {
  program
    .command("events")
    .description(
      "print the event log as NDJSON, one event a line, in position order; with --name, resume from that subscriber's checkpoint and save it after each batch",
    )
    .addOption(dbOption())
    .option(
      "--from <n|end>",
      "first position to print, or end: only the events committed after it starts (a named subscriber's checkpoint wins once it has one)",
      "1",
    )
    .option("--follow", "after the catch-up, print new events as they commit, until SIGINT or SIGTERM")
    .option(
      "--type <types>",
      "only these stream types, comma-separated (job, guid, message, schedule, …, and those of --streams: a type not in the list is refused with the list)",
    )
    .addOption(streamsOption())
    .option(
      "--name <subscriber>",
      "keep a durable checkpoint under this name (at least once: a batch is printed before it is saved)",
    )
    .option("--batch-size <n>", "events per batch (the checkpoint moves once a batch is printed)", "100")
    .option(
      "--poll <duration>",
      "with --follow: pause between polls once caught up (PostgreSQL is also woken by NOTIFY)",
      "250ms",
    )
    .action(async (o: EventsOptions) => (await actions()).events(context, o));
}
