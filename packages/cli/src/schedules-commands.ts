import type { Command } from "commander";
import type { AddScheduleOptions, RemoveScheduleOptions, ListScheduleOptions, RunSchedulesOptions } from "./schedules-actions.ts";
import { dbOption, jsonOption } from "./options.ts";
import type { CliContext } from "./output.ts";

// Loaded when a command runs: the store and the core.
const actions = () => import("./schedules-actions.ts");

/**
 * `verq schedules …`: add, list, remove, run. Exit codes: 0 done; 2 a bad option (a bad cron
 * expression or timezone included: nothing is written); 4 `remove` of a schedule that is not active.
 */
export function registerSchedulesCommands(program: Command, context: CliContext): void {
  const schedules = program
    .command("schedules")
    .description("cron schedules: each due slot enqueues one job, schedule:<name>:<slot>, however many schedulers run");

  schedules
    .command("add")
    .description("add a schedule, or change its definition (the same definition again is a no-op)")
    .argument("<name>", "schedule name: 1 to 100 of A-Z a-z 0-9 . _ -")
    .addOption(dbOption())
    .requiredOption("--cron <expr>", "5 fields (or 6, seconds first), or @hourly, @daily, …")
    .option("--timezone <tz>", "IANA timezone the expression is read in", "UTC")
    .option("--payload <json>", "payload of every job it enqueues", "null")
    .option("--queue <name>", "queue its jobs go to", "default")
    .addOption(jsonOption())
    .action(async (name: string, o: AddScheduleOptions) => (await actions()).add(context, name, o));

  schedules
    .command("list")
    .description("list the active schedules with their last enqueued slot")
    .addOption(dbOption())
    .option("--all", "include removed schedules")
    .addOption(jsonOption())
    .action(async (o: ListScheduleOptions) => (await actions()).list(context, o));

  schedules
    .command("remove")
    .description("remove a schedule: no slot of it is enqueued any more")
    .argument("<name>", "schedule name")
    .addOption(dbOption())
    .addOption(jsonOption())
    .action(async (name: string, o: RemoveScheduleOptions) => (await actions()).remove(context, name, o));

  schedules
    .command("run")
    .description("enqueue the due slot of every schedule once, then exit (verq jobs work does this each poll round)")
    .addOption(dbOption())
    .addOption(jsonOption("print one JSON line per slot enqueued"))
    .action(async (o: RunSchedulesOptions) => (await actions()).run(context, o));
}
