import { VerqError, isVerqError, type DeadReason, type FinishOutcome, type Job } from "@verq/core";
import { JobQueue, openStore, type StoredEvent, type VerqStore } from "@verq/store";
import type { Command } from "commander";
import { createHttpSender } from "../http/http-sender.ts";
import { failpoint } from "../failpoints.ts";
import { clockFromEnv } from "./clock-from-env.ts";
import { parseDuration } from "./durations.ts";
import { EXIT } from "./exit-codes.ts";
import { emit, reportError, type CliContext } from "./output.ts";

interface DbOption {
  readonly db: string;
  readonly json?: boolean;
}

/** Opens the store and a queue on it, runs `work`, closes the store, and reports errors with their exit codes. */
async function withQueue(context: CliContext, options: DbOption, work: (queue: JobQueue, store: VerqStore) => Promise<number | void>): Promise<void> {
  let store: VerqStore | undefined;
  try {
    store = await openStore({ path: options.db });
    const code = await work(new JobQueue(store, { clock: clockFromEnv() }), store);
    context.setExitCode(code ?? EXIT.ok);
  } catch (error) {
    context.setExitCode(reportError(context.io, options.json === true, error));
  } finally {
    await store?.close();
  }
}

function parseWholeNumber(text: string, what: string): number {
  if (!/^\d{1,9}$/.test(text)) throw new VerqError("VERQ_INVALID_ARGUMENT", `${what} must be a whole number`);
  return Number(text);
}

function parsePayload(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new VerqError("VERQ_INVALID_PAYLOAD", "--payload must be valid JSON, e.g. '{\"quantity\": 7}'");
  }
}

const describeJob = (job: Job): string =>
  `${job.id} ${job.state}${job.reason === null ? "" : `(${job.reason})`} token=${job.token} attempts=${job.attempts}/${job.maxAttempts}`;

function describeEvent(event: StoredEvent): string {
  const d = event.data as Record<string, unknown>;
  const time = new Date(event.at).toISOString();
  const details = Object.entries(d)
    .filter(([k]) => k !== "at" && k !== "payload")
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(" ");
  return `  v${event.version} ${time} ${event.type} ${details}`;
}

/** `verq jobs …`: enqueue, work, finish, stats, dead, redrive, show. */
export function registerJobsCommands(program: Command, context: CliContext): void {
  const { io } = context;
  const jobs = program.command("jobs").description("durable jobs with leases, fencing tokens and dead letters");

  jobs
    .command("enqueue")
    .description("add a job; the same id with the same payload again is a no-op")
    .requiredOption("--db <file>", "SQLite file")
    .requiredOption("--id <id>", "business id of the job")
    .requiredOption("--payload <json>", "the job's payload as JSON")
    .option("--max-attempts <n>", "attempt budget", "5")
    .option("--deadline <duration>", "absolute deadline, as a duration from now (e.g. 24h)", "24h")
    .option("--ordering-key <key>", "run jobs of one key one at a time, in order")
    .option("--json", "print JSON")
    .action((o: DbOption & { id: string; payload: string; maxAttempts: string; deadline: string; orderingKey?: string }) =>
      withQueue(context, o, async (queue) => {
        const now = clockFromEnv().now();
        const input = {
          id: o.id,
          payload: parsePayload(o.payload),
          maxAttempts: parseWholeNumber(o.maxAttempts, "--max-attempts"),
          deadline: now + parseDuration(o.deadline, "--deadline"),
          ...(o.orderingKey === undefined ? {} : { orderingKey: o.orderingKey }),
        };
        const result = await queue.enqueue(input);
        emit(io, o.json === true, result, () => `${result.created ? "enqueued" : "already enqueued (same payload, no-op)"} ${describeJob(result.job)}`);
      }),
    );

  jobs
    .command("work")
    .description("claim due jobs and POST them to --target until stopped")
    .requiredOption("--db <file>", "SQLite file")
    .requiredOption("--target <url>", "receiver URL; the job id travels as the Idempotency-Key header")
    .option("--owner <name>", "worker name recorded with each claim", `worker-${process.pid}`)
    .option("--lease <duration>", "lease per claim", "30s")
    .option("--once", "run at most one job, then exit")
    .option("--concurrency <n>", "jobs in flight at once", "1")
    .option("--exit-when-idle", "exit when no job is due instead of polling")
    .option("--poll <duration>", "pause between polls when idle", "200ms")
    .option("--timeout <duration>", "HTTP timeout per delivery", "10s")
    .option("--json", "print JSON lines")
    .action((o: DbOption & { target: string; owner: string; lease: string; once?: boolean; concurrency: string; exitWhenIdle?: boolean; poll: string; timeout: string }) =>
      withQueue(context, o, async (queue) => {
        const leaseMs = parseDuration(o.lease, "--lease");
        const pollMs = parseDuration(o.poll, "--poll");
        const concurrency = parseWholeNumber(o.concurrency, "--concurrency");
        const http = createHttpSender({ url: o.target, timeoutMs: parseDuration(o.timeout, "--timeout") });
        const sender = async (job: Parameters<typeof http>[0]) => {
          try {
            return await http(job);
          } finally {
            failpoint("job.afterSend");
            failpoint("job.beforeFinish");
          }
        };
        const json = o.json === true;
        if (o.once === true) {
          const result = await queue.runOnce(o.owner, sender, { leaseMs });
          emit(io, json, result, () =>
            result.status === "idle" ? "idle: no job is due" : `${result.id} token=${result.token} outcome=${result.outcome} accepted=${result.accepted}`,
          );
          return EXIT.ok;
        }
        let stopping = false;
        const stop = () => (stopping = true);
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
        let failures = 0;
        const loop = async (slot: number): Promise<void> => {
          const owner = concurrency > 1 ? `${o.owner}#${slot}` : o.owner;
          while (!stopping) {
            try {
              const result = await queue.runOnce(owner, sender, { leaseMs });
              if (result.status === "idle") {
                if (o.exitWhenIdle === true) return;
                await new Promise((resolve) => setTimeout(resolve, pollMs));
                continue;
              }
              emit(io, json, result, () => `${result.id} token=${result.token} outcome=${result.outcome} accepted=${result.accepted}`);
            } catch (error) {
              // The job stays leased and is recovered after its lease expires; the failure is shown, never hidden.
              failures++;
              reportError(io, json, error);
              if (!isVerqError(error) || o.exitWhenIdle === true) await new Promise((resolve) => setTimeout(resolve, pollMs));
            }
          }
        };
        await Promise.all(Array.from({ length: Math.max(1, concurrency) }, (_, i) => loop(i + 1)));
        return failures > 0 && o.exitWhenIdle === true ? EXIT.failed : EXIT.ok;
      }),
    );

  jobs
    .command("finish")
    .description("record an attempt's outcome; accepted only with the job's current token (exit 3 when refused)")
    .argument("<id>", "job id")
    .requiredOption("--db <file>", "SQLite file")
    .requiredOption("--token <n>", "the fencing token from the claim")
    .requiredOption("--outcome <outcome>", "ok, retry or permanent")
    .option("--json", "print JSON")
    .action((id: string, o: DbOption & { token: string; outcome: string }) =>
      withQueue(context, o, async (queue) => {
        const token = parseWholeNumber(o.token, "--token");
        const accepted = await queue.finish(id, token, o.outcome as FinishOutcome);
        emit(io, o.json === true, { id, token, outcome: o.outcome, accepted }, () =>
          accepted ? `accepted: ${id} token=${token} ${o.outcome}` : `refused: ${id} token=${token} is not the current lease`,
        );
        return accepted ? EXIT.ok : EXIT.refused;
      }),
    );

  jobs
    .command("stats")
    .description("counts by state, dead letters by reason, oldest dead job, last redrive, lease expiries")
    .requiredOption("--db <file>", "SQLite file")
    .option("--json", "print JSON")
    .action((o: DbOption) =>
      withQueue(context, o, async (queue) => {
        const s = await queue.stats();
        emit(io, o.json === true, s, () =>
          [
            `pending=${s.byState.pending} leased=${s.byState.leased} done=${s.byState.done} dead=${s.byState.dead}`,
            `dead by reason: ${Object.entries(s.dead.byReason).map(([r, v]) => `${r}=${v.count} (${(v.ratio * 100).toFixed(1)}%)`).join(" ")}`,
            `oldest dead: ${s.dead.oldest === null ? "none" : `${s.dead.oldest.id} since ${new Date(s.dead.oldest.deadSince).toISOString()}`}`,
            `last redrive: ${s.lastRedrive === null ? "none" : `${s.lastRedrive.jobId} ${s.lastRedrive.note} at ${new Date(s.lastRedrive.at).toISOString()} -> ${s.lastRedrive.resultState ?? "?"}`}`,
            `lease expiries: ${s.leaseExpiries}; stale finishes refused: ${s.staleFinishesRefused}`,
          ].join("\n"),
        );
      }),
    );

  jobs
    .command("dead")
    .description("dead jobs, oldest first (identifiers only, no payloads)")
    .requiredOption("--db <file>", "SQLite file")
    .option("--reason <reason>", "permanent, exhausted or deadline")
    .option("--limit <n>", "at most this many", "100")
    .option("--json", "print JSON")
    .action((o: DbOption & { reason?: string; limit: string }) =>
      withQueue(context, o, async (queue) => {
        if (o.reason !== undefined && !["permanent", "exhausted", "deadline"].includes(o.reason)) {
          throw new VerqError("VERQ_INVALID_ARGUMENT", "--reason must be permanent, exhausted or deadline");
        }
        const limit = parseWholeNumber(o.limit, "--limit");
        const dead = await queue.list("dead", { limit, ...(o.reason === undefined ? {} : { reason: o.reason as DeadReason }) });
        const rows = dead.map((j) => ({ id: j.id, reason: j.reason, deadSince: j.deadSince, attempts: j.attempts, token: j.token }));
        emit(io, o.json === true, rows, () =>
          rows.length === 0 ? "no dead jobs" : rows.map((r) => `${r.id} ${r.reason} since ${new Date(r.deadSince ?? 0).toISOString()} attempts=${r.attempts} token=${r.token}`).join("\n"),
        );
      }),
    );

  jobs
    .command("redrive")
    .description("put a dead job back to pending with a fresh budget; needs a ticket id as the note")
    .argument("<id>", "job id")
    .requiredOption("--db <file>", "SQLite file")
    .requiredOption("--note <ticket>", "ticket id, e.g. OPS-1234 (ASCII letters, digits, . _ - : # /)")
    .option("--deadline <duration>", "new deadline as a duration from now (default: the job's original window)")
    .option("--json", "print JSON")
    .action((id: string, o: DbOption & { note: string; deadline?: string }) =>
      withQueue(context, o, async (queue) => {
        const deadline = o.deadline === undefined ? undefined : clockFromEnv().now() + parseDuration(o.deadline, "--deadline");
        const record = await queue.redrive(id, deadline === undefined ? { note: o.note } : { note: o.note, deadline });
        emit(io, o.json === true, record, () => `redriven ${record.jobId} note=${record.note} previous token=${record.previousToken}`);
      }),
    );

  jobs
    .command("show")
    .description("a job and its timeline: claims with tokens and owners, outcomes, dead reason, redrives")
    .argument("<id>", "job id")
    .requiredOption("--db <file>", "SQLite file")
    .option("--json", "print JSON")
    .action((id: string, o: DbOption) =>
      withQueue(context, o, async (queue) => {
        const events = await queue.history(id);
        const job = await queue.get(id);
        if (job === null) throw new VerqError("VERQ_UNKNOWN_JOB", `no job with id ${id}`);
        emit(io, o.json === true, { ...job, events }, () => [describeJob(job), ...events.map(describeEvent)].join("\n"));
      }),
    );
}
