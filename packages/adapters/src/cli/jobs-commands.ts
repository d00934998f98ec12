import {
  MAX_ATTEMPTS_LIMIT,
  VerqError,
  checkIdentifier,
  checkLeaseMs,
  checkToken,
  type DeadReason,
  type FinishOutcome,
  type Job,
} from "@verq/core";
import {
  JobQueue,
  JobWorker,
  MAX_BATCH_SIZE,
  type ClaimedJob,
  type JobWorkerReport,
  type JobWorkerResult,
  type VerqStore,
} from "@verq/store";
import type { Command } from "commander";
import { createHttpSender } from "../http/http-sender.ts";
import { failpoint } from "../failpoints.ts";
import { clockFromEnv } from "./clock-from-env.ts";
import {
  dbOption,
  describeEvent,
  iso,
  jsonOption,
  onStopSignal,
  untilStopSignal,
  parseChoice,
  parseDuration,
  parseHttpUrl,
  parseWholeNumber,
  runCommand,
  withStore,
  type DbOptions,
} from "./common.ts";
import { EXIT } from "./exit-codes.ts";
import { emit, reportError, type CliContext } from "./output.ts";

/** The longest HTTP timeout per delivery: above it, Node's timers would fire at once. */
const MAX_TIMEOUT_MS = 86_400_000;

/** Opens the store and a queue on it (with the clock of `VERQ_NOW_MS`), runs `work`, closes the store. */
const withQueue = <T>(db: string, work: (queue: JobQueue, store: VerqStore) => Promise<T>): Promise<T> =>
  withStore(db, (store) => work(new JobQueue(store, { clock: clockFromEnv() }), store));

function parsePayload(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new VerqError("VERQ_INVALID_PAYLOAD", "--payload must be valid JSON, e.g. '{\"quantity\": 7}'");
  }
}

const describeJob = (job: Job): string =>
  `${job.id} ${job.state}${job.reason === null ? "" : `(${job.reason})`} token=${job.token} attempts=${job.attempts}/${job.maxAttempts}`;

const describeResult = (r: JobWorkerResult): string => `${r.id} token=${r.token} outcome=${r.outcome} accepted=${r.accepted}`;

interface WorkOptions extends DbOptions {
  readonly target: string;
  readonly owner: string;
  readonly lease: string;
  readonly once?: boolean;
  readonly concurrency: string;
  readonly exitWhenIdle?: boolean;
  readonly poll: string;
  readonly timeout: string;
}

/**
 * `verq jobs work`: a {@link JobWorker} that POSTs each job to `--target`. Every option is
 * checked before the store is opened, so a bad one claims nothing and spends no attempt. The
 * failpoints `job.afterSend` (the answer is in, the outcome not yet recorded) and
 * `job.beforeFinish` (right before the transaction that records it) stop the process for crash
 * tests. Exit codes: 0 done (`--once` also when nothing was due); 1 a send failed unexpectedly
 * (a `BadAck`) under `--once` or `--exit-when-idle`, leaving its job leased; 2 a bad option.
 */
async function work(context: CliContext, o: WorkOptions): Promise<number> {
  const { io } = context;
  const json = o.json === true;
  // Everything is checked before the store is opened: a bad option claims nothing.
  const target = parseHttpUrl(o.target, "--target");
  const owner = checkIdentifier(o.owner, "--owner", "VERQ_INVALID_ARGUMENT");
  const leaseMs = checkLeaseMs(parseDuration(o.lease, "--lease"));
  const concurrency = parseWholeNumber(o.concurrency, "--concurrency", { min: 1, max: MAX_BATCH_SIZE });
  const idleMs = parseDuration(o.poll, "--poll", { min: 1, max: 3_600_000 });
  const timeoutMs = parseDuration(o.timeout, "--timeout", { min: 1, max: MAX_TIMEOUT_MS });
  const clock = clockFromEnv();
  const http = createHttpSender({ url: target, timeoutMs });
  const sender = async (job: ClaimedJob) => {
    try {
      return await http(job);
    } finally {
      failpoint("job.afterSend");
    }
  };
  const once = o.once === true;
  return withStore(o.db, async (store) => {
    const worker = new JobWorker(new JobQueue(store, { clock }), {
      owner,
      sender,
      leaseMs,
      idleMs,
      // --once is at most one job: one claim of one job.
      concurrency: once ? 1 : concurrency,
      beforeRecord: () => failpoint("job.beforeFinish"),
      // The job stays leased and is recovered after its lease expires; the failure is shown, never hidden.
      onSendError: (_job, error) => reportError(io, json, error),
      onError: (error) => reportError(io, json, error),
      onFinished: (result) => emit(io, json, { status: "finished", ...result }, () => describeResult(result)),
    });
    let report: JobWorkerReport;
    if (once) {
      report = await worker.drain({ limit: 1 });
      if (report.claimed === 0) emit(io, json, { status: "idle" }, () => "idle: no job is due");
    } else if (o.exitWhenIdle === true) {
      const off = onStopSignal(() => void worker.stop().catch(() => undefined));
      try {
        report = await worker.drain();
      } finally {
        off();
      }
    } else {
      worker.start();
      await untilStopSignal();
      report = await worker.stop();
    }
    const failed = report.leftLeased + report.errors > 0;
    return failed && (once || o.exitWhenIdle === true) ? EXIT.failed : EXIT.ok;
  });
}

/** `verq jobs …`: enqueue, work, finish, stats, dead, redrive, show. */
export function registerJobsCommands(program: Command, context: CliContext): void {
  const { io } = context;
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
    .action((o: DbOptions & { id: string; payload: string; maxAttempts: string; deadline: string; orderingKey?: string }) =>
      runCommand(context, o, () => {
        const input = {
          id: checkIdentifier(o.id, "--id"),
          payload: parsePayload(o.payload),
          maxAttempts: parseWholeNumber(o.maxAttempts, "--max-attempts", { min: 1, max: MAX_ATTEMPTS_LIMIT }),
          deadline: clockFromEnv().now() + parseDuration(o.deadline, "--deadline", { min: 1 }),
          ...(o.orderingKey === undefined
            ? {}
            : { orderingKey: checkIdentifier(o.orderingKey, "--ordering-key", "VERQ_INVALID_ARGUMENT") }),
        };
        return withQueue(o.db, async (queue) => {
          const result = await queue.enqueue(input);
          emit(
            io,
            o.json === true,
            result,
            () => `${result.created ? "enqueued" : "already enqueued (same payload, no-op)"} ${describeJob(result.job)}`,
          );
        });
      }),
    );

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
    .addOption(jsonOption("print JSON lines"))
    .action((o: WorkOptions) => runCommand(context, o, () => work(context, o)));

  jobs
    .command("finish")
    .description("record an attempt's outcome; accepted only with the job's current token (exit 3 when refused)")
    .argument("<id>", "job id")
    .addOption(dbOption())
    .requiredOption("--token <n>", "the fencing token from the claim")
    .requiredOption("--outcome <outcome>", "ok, retry or permanent")
    .addOption(jsonOption())
    .action((id: string, o: DbOptions & { token: string; outcome: string }) =>
      runCommand(context, o, () => {
        checkIdentifier(id, "the job id");
        const token = checkToken(parseWholeNumber(o.token, "--token", { min: 1 }));
        const outcome = parseChoice<FinishOutcome>(o.outcome, "--outcome", ["ok", "retry", "permanent"]);
        return withQueue(o.db, async (queue) => {
          const accepted = await queue.finish(id, token, outcome);
          emit(io, o.json === true, { id, token, outcome, accepted }, () =>
            accepted ? `accepted: ${id} token=${token} ${outcome}` : `refused: ${id} token=${token} is not the current lease`,
          );
          return accepted ? EXIT.ok : EXIT.refused;
        });
      }),
    );

  jobs
    .command("stats")
    .description("counts by state, dead letters by reason, oldest dead job, last redrive, lease expiries")
    .addOption(dbOption())
    .addOption(jsonOption())
    .action((o: DbOptions) =>
      runCommand(context, o, () =>
        withQueue(o.db, async (queue) => {
          const s = await queue.stats();
          emit(io, o.json === true, s, () =>
            [
              `pending=${s.byState.pending} leased=${s.byState.leased} done=${s.byState.done} dead=${s.byState.dead}`,
              `dead by reason: ${Object.entries(s.dead.byReason)
                .map(([r, v]) => `${r}=${v.count} (${(v.ratio * 100).toFixed(1)}%)`)
                .join(" ")}`,
              `oldest dead: ${s.dead.oldest === null ? "none" : `${s.dead.oldest.id} since ${iso(s.dead.oldest.deadSince)}`}`,
              `last redrive: ${s.lastRedrive === null ? "none" : `${s.lastRedrive.jobId} ${s.lastRedrive.note} at ${iso(s.lastRedrive.at)} -> ${s.lastRedrive.resultState ?? "?"}`}`,
              `lease expiries: ${s.leaseExpiries}; stale finishes refused: ${s.staleFinishesRefused}`,
            ].join("\n"),
          );
        }),
      ),
    );

  jobs
    .command("dead")
    .description("dead jobs, oldest first (identifiers only, no payloads)")
    .addOption(dbOption())
    .option("--reason <reason>", "permanent, exhausted or deadline")
    .option("--limit <n>", "at most this many", "100")
    .addOption(jsonOption())
    .action((o: DbOptions & { reason?: string; limit: string }) =>
      runCommand(context, o, () => {
        const reason =
          o.reason === undefined
            ? undefined
            : parseChoice<DeadReason>(o.reason, "--reason", ["permanent", "exhausted", "deadline"]);
        const limit = parseWholeNumber(o.limit, "--limit", { min: 1 });
        return withQueue(o.db, async (queue) => {
          const dead = await queue.list("dead", { limit, ...(reason === undefined ? {} : { reason }) });
          const rows = dead.map((j) => ({
            id: j.id,
            reason: j.reason,
            deadSince: j.deadSince,
            attempts: j.attempts,
            token: j.token,
          }));
          emit(io, o.json === true, rows, () =>
            rows.length === 0
              ? "no dead jobs"
              : rows
                  .map((r) => `${r.id} ${r.reason} since ${iso(r.deadSince ?? 0)} attempts=${r.attempts} token=${r.token}`)
                  .join("\n"),
          );
        });
      }),
    );

  jobs
    .command("redrive")
    .description("put a dead job back to pending with a fresh budget; needs a ticket id as the note")
    .argument("<id>", "job id")
    .addOption(dbOption())
    .requiredOption("--note <ticket>", "ticket id, e.g. OPS-1234 (ASCII letters, digits, . _ - : # /)")
    .option("--deadline <duration>", "new deadline as a duration from now (default: the job's original window)")
    .addOption(jsonOption())
    .action((id: string, o: DbOptions & { note: string; deadline?: string }) =>
      runCommand(context, o, () => {
        checkIdentifier(id, "the job id");
        const deadline =
          o.deadline === undefined ? undefined : clockFromEnv().now() + parseDuration(o.deadline, "--deadline", { min: 1 });
        return withQueue(o.db, async (queue) => {
          const record = await queue.redrive(id, deadline === undefined ? { note: o.note } : { note: o.note, deadline });
          emit(
            io,
            o.json === true,
            record,
            () => `redriven ${record.jobId} note=${record.note} previous token=${record.previousToken}`,
          );
        });
      }),
    );

  jobs
    .command("show")
    .description("a job and its timeline: claims with tokens and owners, outcomes, dead reason, redrives")
    .argument("<id>", "job id")
    .addOption(dbOption())
    .addOption(jsonOption())
    .action((id: string, o: DbOptions) =>
      runCommand(context, o, () => {
        checkIdentifier(id, "the job id");
        return withQueue(o.db, async (queue) => {
          const events = await queue.history(id);
          const job = await queue.get(id);
          if (job === null) throw new VerqError("VERQ_UNKNOWN_JOB", `no job with id ${id}`);
          emit(io, o.json === true, { ...job, events }, () =>
            [describeJob(job), ...events.map((e) => describeEvent(e, ["payload"]))].join("\n"),
          );
        });
      }),
    );
}
