import { Option, type Command } from "commander";
import type {
  CancelOptions,
  DeadOptions,
  EnqueueOptions,
  FinishOptions,
  ListOptions,
  PruneOptions,
  RedriveOptions,
  StatsOptions,
} from "./jobs-actions.ts";
import type { EnqueueFromOptions, RedriveAllOptions } from "./jobs-bulk.ts";
import type { WorkOptions } from "./jobs-work.ts";
import { dbOption, jsonOption, logLevelOption, type DbOptions } from "./options.ts";
import type { CliContext } from "./output.ts";

// Loaded when a command runs: the store for all, the HTTP sender only for `work`, the bulk forms only for `--from` and `--all`.
const actions = () => import("./jobs-actions.ts");
const bulk = () => import("./jobs-bulk.ts");
const worker = () => import("./jobs-work.ts");

/** `verq jobs …`: enqueue, work, finish, stats, list, dead, redrive, cancel, prune, show. */
export function registerJobsCommands(program: Command, context: CliContext): void {
  const jobs = program.command("jobs").description("durable jobs with leases, fencing tokens and dead letters");

  jobs
    .command("enqueue")
    .description(
      "add a job (--id, --payload), or one job per NDJSON line (--from); the same id with the same payload again is a no-op",
    )
    .addOption(dbOption())
    .option("--id <id>", "business id of the job")
    .option("--payload <json>", "the job's payload as JSON")
    .option("--max-attempts <n>", "attempt budget", "5")
    .option("--deadline <duration>", "absolute deadline, as a duration from now (e.g. 24h)", "24h")
    .option("--ordering-key <key>", "run jobs of one key one at a time, in order")
    .option("--queue <name>", "the named queue (default: default)")
    .option("--priority <n>", "-1000 to 1000; higher is claimed first among due jobs (default: 0)")
    .option(
      "--kind <name>",
      "the job's kind, which routes it to its handler; only workers that handle it claim it (default: none)",
    )
    .addOption(
      new Option(
        "--from <file>",
        'NDJSON, one job a line: {"id","payload","maxAttempts"?,"deadline"?,"orderingKey"?,"queue"?,"priority"?,"kind"?}; - for stdin',
      ).conflicts(["id", "payload", "orderingKey", "queue", "priority", "kind"]),
    )
    .option("--chunk <n>", "with --from: lines per transaction (1-1000)", "500")
    .addOption(jsonOption())
    .action(async (o: EnqueueOptions & Partial<EnqueueFromOptions>, command: Command) => {
      if (o.from !== undefined) return (await bulk()).enqueueFrom(context, { ...o, from: o.from, chunk: o.chunk ?? "500" });
      // Without --from, --chunk would be ignored unchecked: refused like any option that cannot apply.
      if (command.getOptionValueSource("chunk") === "cli") return usage(context, o.json, "--chunk goes with --from");
      if (o.id === undefined || o.payload === undefined)
        return usage(context, o.json, "jobs enqueue needs --id and --payload, or --from FILE");
      return (await actions()).enqueue(context, { ...o, id: o.id, payload: o.payload });
    });

  jobs
    .command("work")
    .description(
      "claim due jobs and POST them to --target until stopped; one transaction records a round's outcomes and claims the next jobs",
    )
    .addOption(dbOption())
    .requiredOption("--target <url>", "receiver URL; the job id travels as the Idempotency-Key header")
    .option("--owner <name>", "worker name recorded with each claim", `worker-${process.pid}`)
    .option("--queue <names>", "claim from these named queues, comma-separated (default: default)")
    .option(
      "--kind <names...>",
      "work only jobs of these kinds (space- or comma-separated); jobs without a kind, and of other kinds, stay pending for another worker (default: every job, whatever its kind)",
    )
    .option("--lease <duration>", "lease per claim; heartbeats extend it while the worker holds the job", "30s")
    .option("--once", "run at most one job, then exit")
    .option("--concurrency <n>", "jobs in flight at once", "1")
    .option("--batch-size <n>", "most jobs claimed in one transaction (default: --concurrency)")
    .option("--rounds <n>", "transactions under way at once, 1-4 (default: 2 on PostgreSQL, 1 on SQLite)")
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
    .description(
      "counts by state, dead letters by reason and last failure class, oldest dead job, last redrive, lease expiries, per queue and per kind",
    )
    .addOption(dbOption())
    .option("--queue <name>", "show only this queue in the per-queue figures")
    .option("--kind <name>", "show only this kind in the per-kind figures ((none): the jobs without a kind)")
    .addOption(jsonOption())
    .action(async (o: StatsOptions) => (await actions()).stats(context, o));

  jobs
    .command("list")
    .description("jobs in one state, oldest first, with their queue, kind and last failure class (identifiers only, no payloads)")
    .addOption(dbOption())
    .requiredOption("--state <state>", "pending, leased, done or dead")
    .option("--kind <name>", "only jobs of this kind ((none): the jobs without a kind)")
    .option("--limit <n>", "at most this many", "100")
    .addOption(jsonOption())
    .action(async (o: ListOptions) => (await actions()).list(context, o));

  jobs
    .command("dead")
    .description("dead jobs, oldest first, with their kind and last failure class (identifiers only, no payloads)")
    .addOption(dbOption())
    .option("--reason <reason>", "permanent, exhausted, deadline or cancelled")
    .option("--kind <name>", "only jobs of this kind ((none): the jobs without a kind)")
    .option("--limit <n>", "at most this many", "100")
    .addOption(jsonOption())
    .action(async (o: DeadOptions) => (await actions()).dead(context, o));

  jobs
    .command("redrive")
    .description(
      "put a dead job back to pending with a fresh budget, or every matching dead job with --all at --rate; needs a ticket id as the note",
    )
    .argument("[id]", "job id (or --all)")
    .addOption(dbOption())
    .requiredOption("--note <ticket>", "ticket id, e.g. OPS-1234 (ASCII letters, digits, . _ - : # /)")
    .option("--deadline <duration>", "new deadline as a duration from now (default: the job's original window)")
    .option("--all", "every dead job matching --reason and --older-than, oldest first, one audited redrive each")
    .option("--rate <n/s>", "with --all: at most N redrives per second (N/s) or minute (N/m)")
    .option(
      "--reason <reason>",
      "with --all: only jobs dead for this reason (permanent, exhausted, deadline or cancelled; cancelled jobs are taken only when asked)",
    )
    .option("--older-than <duration>", "with --all: only jobs dead for at least this long")
    .option("--dry-run", "with --all: list what would be redriven and change nothing")
    .option("--owner <name>", "with --all: the name the bulk-redrive lock records (default host:pid)")
    .option("--lease <duration>", "with --all: the lock's lease, renewed every third while the run goes on", "30s")
    .addOption(jsonOption())
    .action(
      async (id: string | undefined, o: RedriveOptions & Partial<RedriveAllOptions> & { all?: boolean }, command: Command) => {
        const bulkOnly = ["rate", "reason", "olderThan", "dryRun", "owner"] as const;
        if (o.all === true) {
          if (id !== undefined) return usage(context, o.json, "jobs redrive takes a job id or --all, not both");
          const { defaultOwner, redriveAll } = await bulk();
          return redriveAll(context, { ...o, owner: o.owner ?? defaultOwner(), lease: o.lease ?? "30s" });
        }
        if (id === undefined) return usage(context, o.json, "jobs redrive needs a job id, or --all --rate N/s");
        const stray = bulkOnly.find((k) => o[k] !== undefined);
        if (stray !== undefined)
          return usage(context, o.json, `--${stray.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} goes with --all`);
        // --lease has a default, so only its source tells that it was given: refused as the others.
        if (command.getOptionValueSource("lease") === "cli") return usage(context, o.json, "--lease goes with --all");
        return (await actions()).redrive(context, id, o);
      },
    );

  jobs
    .command("prune")
    .description(
      "remove finished jobs and their events in batches, keeping an archive row per job; never a pending or leased job",
    )
    .addOption(dbOption())
    .requiredOption("--done-older-than <duration>", "prune done jobs finished at least this long ago (e.g. 7d)")
    .option("--dead-older-than <duration>", "prune dead jobs dead at least this long ago too (default: keep dead jobs)")
    .option("--batch <n>", "jobs looked at per transaction (1-10000)", "500")
    .option("--dry-run", "count what would be pruned and change nothing")
    .addOption(jsonOption())
    .action(async (o: PruneOptions) => (await actions()).prune(context, o));

  jobs
    .command("cancel")
    .description(
      "cancel a pending or leased job: it goes dead(cancelled) and its lease holder's heartbeat and finish are refused (exit 3 when it already ended, 4 when unknown)",
    )
    .argument("<id>", "job id")
    .addOption(dbOption())
    .requiredOption("--note <ticket>", "ticket id, e.g. OPS-1234 (ASCII letters, digits, . _ - : # /)")
    .addOption(jsonOption())
    .action(async (id: string, o: CancelOptions) => (await actions()).cancel(context, id, o));

  jobs
    .command("show")
    .description(
      "a job, its kind and last failure, and its timeline: claims with tokens and owners, failures, outcomes, dead reason, redrives",
    )
    .argument("<id>", "job id")
    .addOption(dbOption())
    .addOption(jsonOption())
    .action(async (id: string, o: DbOptions) => (await actions()).show(context, id, o));
}

/** A usage error found while dispatching (exit 2), printed the way every command prints errors (JSON on stdout with `--json`). */
function usage(context: CliContext, json: boolean | undefined, message: string): void {
  if (json === true) context.io.out(JSON.stringify({ error: { code: "VERQ_INVALID_ARGUMENT", message } }));
  else context.io.err(`verq: VERQ_INVALID_ARGUMENT: ${message}`);
  context.setExitCode(2);
}
