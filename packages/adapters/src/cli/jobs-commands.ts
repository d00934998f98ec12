import type { Command } from "commander";
import type { DeadOptions, EnqueueOptions, FinishOptions, RedriveOptions } from "./jobs-actions.ts";
import type { WorkOptions } from "./jobs-work.ts";
import { dbOption, jsonOption, logLevelOption, type DbOptions } from "./options.ts";
import type { CliContext } from "./output.ts";

// Loaded when a command runs: the store for all, the HTTP sender only for `work`.
const actions = () => import("./jobs-actions.ts");
const worker = () => import("./jobs-work.ts");

/** `verq jobs …`: enqueue, work, finish, stats, dead, redrive, show. */
export function registerJobsCommands(program: Command, context: CliContext): void {
  const jobs = program.command("jobs").description("durable jobs with leases, fencing tokens and dead letters");

  jobs
    .command("enqueue")
    .description("add a job; the same id with the same payload again is a no-op")
    .addOption(dbOption())
    .requiredOption("--id <id>", "business id of the job")
    .requiredOption("--payload <json>", "the job's payload as JSON")
    .option("--max-attempts <n>", "attempt budget", "5")
    .option("--deadline <duration>", "absolute deadline, as a duration from now (e.g. 24h)", "24h")
    .option("--ordering-key <key>", "run jobs of one key one at a time, in order")
    .addOption(jsonOption())
    .action(async (o: EnqueueOptions) => (await actions()).enqueue(context, o));

  jobs
    .command("work")
    .description(
      "claim due jobs and POST them to --target until stopped; one transaction records a round's outcomes and claims the next jobs",
    )
    .addOption(dbOption())
    .requiredOption("--target <url>", "receiver URL; the job id travels as the Idempotency-Key header")
    .option("--owner <name>", "worker name recorded with each claim", `worker-${process.pid}`)
    .option("--lease <duration>", "lease per claim; heartbeats extend it while the worker holds the job", "30s")
    .option("--once", "run at most one job, then exit")
    .option("--concurrency <n>", "jobs in flight at once (and the most claimed in one transaction)", "1")
    .option("--exit-when-idle", "exit when no job is due instead of polling")
    .option("--poll <duration>", "pause between polls when idle", "200ms")
    .option("--timeout <duration>", "HTTP timeout per delivery", "10s")
    .addOption(logLevelOption())
    .addOption(jsonOption("print JSON lines"))
    .action(async (o: WorkOptions) => (await worker()).work(context, o));

  jobs
    .command("finish")
    .description("record an attempt's outcome; accepted only with the job's current token (exit 3 when refused)")
    .argument("<id>", "job id")
    .addOption(dbOption())
    .requiredOption("--token <n>", "the fencing token from the claim")
    .requiredOption("--outcome <outcome>", "ok, retry or permanent")
    .addOption(jsonOption())
    .action(async (id: string, o: FinishOptions) => (await actions()).finish(context, id, o));

  jobs
    .command("stats")
    .description("counts by state, dead letters by reason, oldest dead job, last redrive, lease expiries")
    .addOption(dbOption())
    .addOption(jsonOption())
    .action(async (o: DbOptions) => (await actions()).stats(context, o));

  jobs
    .command("dead")
    .description("dead jobs, oldest first (identifiers only, no payloads)")
    .addOption(dbOption())
    .option("--reason <reason>", "permanent, exhausted or deadline")
    .option("--limit <n>", "at most this many", "100")
    .addOption(jsonOption())
    .action(async (o: DeadOptions) => (await actions()).dead(context, o));

  jobs
    .command("redrive")
    .description("put a dead job back to pending with a fresh budget; needs a ticket id as the note")
    .argument("<id>", "job id")
    .addOption(dbOption())
    .requiredOption("--note <ticket>", "ticket id, e.g. OPS-1234 (ASCII letters, digits, . _ - : # /)")
    .option("--deadline <duration>", "new deadline as a duration from now (default: the job's original window)")
    .addOption(jsonOption())
    .action(async (id: string, o: RedriveOptions) => (await actions()).redrive(context, id, o));

  jobs
    .command("show")
    .description("a job and its timeline: claims with tokens and owners, outcomes, dead reason, redrives")
    .argument("<id>", "job id")
    .addOption(dbOption())
    .addOption(jsonOption())
    .action(async (id: string, o: DbOptions) => (await actions()).show(context, id, o));
}
