import { createReadStream } from "node:fs";
import { access, constants } from "node:fs/promises";
import { hostname } from "node:os";
import { createInterface } from "node:readline";
import {
  DEAD_REASONS,
  checkMaxAttempts,
  MessageError,
  VerqError,
  canonicalJson,
  checkIdentifier,
  checkKindName,
  checkPriority,
  checkQueueName,
  coerceError,
  isValidRedriveNote,
  isVerqError,
  type DeadReason,
} from "@verq/core";
import { JobQueue, MAX_BATCH_SIZE, type EnqueueInput } from "@verq/store";
import { bulkFilter, bulkRedrive, type BulkRedriveReport, deadJobs, formatRate, parseRate } from "@verq/adapters/operators";
import { clockFromEnv } from "./clock-from-env.ts";
import { READ_ONLY, iso, onStopSignal, parseChoice, parseDuration, parseWholeNumber, runCommand, withStore } from "./common.ts";
import { EXIT } from "./exit-codes.ts";
import type { DbOptions } from "./options.ts";
import { emit, exitCodeOf, reportError, type CliContext } from "./output.ts";
import { startProgress } from "./progress.ts";

/*
 * The bulk actions of `verq jobs …`: `enqueue --from` (NDJSON) and `redrive --all`; loaded by
 * ./jobs-commands.ts only when one of them runs (cli-progress only when a bar is drawn).
 */

const invalid = (message: string) => new VerqError("VERQ_INVALID_ARGUMENT", message);

/** The options of `verq jobs enqueue --from`. */
export interface EnqueueFromOptions extends DbOptions {
  readonly from: string;
  readonly chunk: string;
}

/** The fields an NDJSON line may have: those of `jobs enqueue`'s options. */
const LINE_FIELDS = new Set(["id", "payload", "maxAttempts", "deadline", "orderingKey", "queue", "priority", "kind"]);

/** One checked line: its number, its job, and its payload's canonical text (to name a conflict's line). */
interface Line {
  readonly n: number;
  readonly input: EnqueueInput;
  readonly payloadJson: string;
}

/** A line that is not a job: its number and the coded error. */
class LineError extends Error {
  constructor(
    readonly line: number,
    readonly error: VerqError,
  ) {
    super(error.message);
  }
}

/**
 * Checks one NDJSON line like `jobs enqueue` checks its options (the same codes): a JSON object
 * with `id` and `payload`, and optionally `maxAttempts` (1 to 1000), `deadline` (a duration from
 * now, `24h` by default), `orderingKey`, `queue` (a queue name), `priority` (-1000 to 1000) and
 * `kind` (a kind name); no other field.
 */
function parseLine(text: string, n: number, now: number): Line {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new LineError(n, invalid("not valid JSON; each line must be one JSON object"));
  }
  try {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw invalid('each line must be a JSON object such as {"id":"a-1","payload":{}}');
    }
    const line = value as Record<string, unknown>;
    const unknown = Object.keys(line).filter((key) => !LINE_FIELDS.has(key));
    if (unknown.length > 0)
      throw invalid(`unknown field ${JSON.stringify(unknown[0]?.slice(0, 40))}; the fields are ${[...LINE_FIELDS].join(", ")}`);
    const id = checkIdentifier(line.id, '"id"');
    if (!("payload" in line)) throw new VerqError("VERQ_INVALID_PAYLOAD", '"payload" is missing');
    const payloadJson = canonicalJson(line.payload);
    const maxAttempts = checkMaxAttempts(line.maxAttempts ?? 5);
    const deadline = line.deadline === undefined ? "24h" : line.deadline;
    if (typeof deadline !== "string") throw invalid('"deadline" must be a duration from now, such as "24h"');
    const input: EnqueueInput = {
      id,
      payload: line.payload,
      maxAttempts,
      deadline: now + parseDuration(deadline, '"deadline"', { min: 1 }),
      ...(line.orderingKey === undefined
        ? {}
        : { orderingKey: checkIdentifier(line.orderingKey, '"orderingKey"', "VERQ_INVALID_ARGUMENT") }),
      ...(line.queue === undefined ? {} : { queue: checkQueueName(line.queue) }),
      ...(line.priority === undefined ? {} : { priority: checkPriority(line.priority) }),
      ...(line.kind === undefined ? {} : { kind: checkKindName(line.kind) }),
    };
    return { n, input, payloadJson };
  } catch (error) {
    if (isVerqError(error)) throw new LineError(n, error);
    throw error;
  }
}

/**
 * The line of a chunk the job machine refused as a payload conflict, for the report: the first
 * whose id came earlier in the chunk with another payload, or exists with another payload. The
 * machine decided; this only finds which line it was (the batch is decided in input order).
 */
async function conflictLine(queue: JobQueue, chunk: readonly Line[]): Promise<number | null> {
  const seen = new Map<string, string>();
  for (const line of chunk) {
    const earlier = seen.get(line.input.id);
    if (earlier !== undefined) {
      if (earlier !== line.payloadJson) return line.n;
      continue;
    }
    const existing = await queue.get(line.input.id);
    if (existing !== null && canonicalJson(existing.payload) !== line.payloadJson) return line.n;
    seen.set(line.input.id, line.payloadJson);
  }
  return null;
}

/**
 * `verq jobs enqueue --from FILE|-`: one job per NDJSON line, streamed (never the whole file in
 * memory), `--chunk` lines per transaction (`enqueueMany`). The first bad line stops the run:
 * `line N: CODE: message`, nothing of its chunk written, the chunks before it kept (exit 2 for a
 * malformed line, 3 for a rule's refusal such as a payload conflict).
 */
export const enqueueFrom = (context: CliContext, o: EnqueueFromOptions): Promise<void> =>
  runCommand(context, o, async () => {
    const chunkSize = parseWholeNumber(o.chunk, "--chunk", { min: 1, max: MAX_BATCH_SIZE });
    if (o.from !== "-") {
      await access(o.from, constants.R_OK).catch(() => {
        throw new MessageError("VERQ_FILE_NOT_FOUND", `cannot read --from ${o.from}; check the path`);
      });
    }
    const clock = clockFromEnv();
    return withStore(o.db, async (store) => {
      const queue = new JobQueue(store, { clock });
      const stream = o.from === "-" ? process.stdin : createReadStream(o.from, { encoding: "utf8" });
      const lines = createInterface({ input: stream, crlfDelay: Infinity });
      const written = { lines: 0, chunks: 0, created: 0, existing: 0, lastLine: 0 };
      let chunk: Line[] = [];
      const flush = async () => {
        if (chunk.length === 0) return;
        try {
          const results = await queue.enqueueMany(chunk.map((l) => l.input));
          written.created += results.filter((r) => r.created).length;
          written.existing += results.filter((r) => !r.created).length;
        } catch (error) {
          const e = coerceError(error);
          if (!isVerqError(e) || e.code !== "VERQ_ENQUEUE_CONFLICT") throw e;
          throw new LineError((await conflictLine(queue, chunk)) ?? chunk[0]?.n ?? 0, e);
        }
        written.lines += chunk.length;
        written.chunks++;
        written.lastLine = chunk.at(-1)?.n ?? written.lastLine;
        chunk = [];
      };
      try {
        let n = 0;
        for await (const text of lines) {
          n++;
          if (text.trim() === "") continue;
          chunk.push(parseLine(text, n, clock.now()));
          if (chunk.length >= chunkSize) await flush();
        }
        await flush();
      } catch (error) {
        if (!(error instanceof LineError)) throw error;
        lines.close();
        return reportBadLine(context, o.json === true, error, written);
      }
      emit(
        context.io,
        o.json === true,
        { ...written, lastLine: undefined },
        () =>
          `enqueued ${written.created} new, ${written.existing} already there with the same payload (no-op), from ${written.lines} lines in ${written.chunks} chunks`,
      );
      return EXIT.ok;
    });
  });

function reportBadLine(
  context: CliContext,
  json: boolean,
  bad: LineError,
  written: { lines: number; chunks: number; created: number; existing: number; lastLine: number },
): number {
  const before =
    written.chunks === 0
      ? "nothing was written"
      : `${written.lines} lines in ${written.chunks} chunks were written before it (lines 1-${written.lastLine})`;
  const code = bad.error.code;
  if (json) {
    context.io.out(
      JSON.stringify({
        error: { code, message: bad.error.message, line: bad.line },
        written: { ...written, lastLine: undefined },
      }),
    );
  } else {
    context.io.err(`verq: line ${bad.line}: ${code}: ${bad.error.message}`);
    context.io.err(`verq: ${before}; nothing of the chunk holding line ${bad.line} was written`);
  }
  // The exit code of the error's code: 2 for malformed input, 3 for a rule's refusal.
  return exitCodeOf(bad.error);
}

/** The options of `verq jobs redrive --all`. */
export interface RedriveAllOptions extends DbOptions {
  readonly note: string;
  readonly rate?: string;
  readonly reason?: string;
  readonly olderThan?: string;
  readonly deadline?: string;
  readonly dryRun?: boolean;
  readonly owner: string;
  readonly lease: string;
}

/** The default `--owner` of a bulk redrive: `host:pid`. */
export const defaultOwner = (): string => `${hostname()}:${process.pid}`;

/**
 * `verq jobs redrive --all`: every matching dead job redriven at `--rate`, one audited
 * transaction each, under the store's bulk-redrive lock (exit 3 `VERQ_BULK_RUNNING` while another
 * runs), with a progress bar on a terminal and a summary; SIGINT or SIGTERM stops it after the
 * redrive in progress (exit 130) and a rerun continues. `--dry-run` lists what would be redriven.
 */
export const redriveAll = (context: CliContext, o: RedriveAllOptions): Promise<void> =>
  runCommand(context, o, async () => {
    if (!isValidRedriveNote(o.note)) {
      throw new VerqError(
        "VERQ_INVALID_NOTE",
        "--note must be a ticket id: 1-64 ASCII letters, digits or . _ - : # /, starting with a letter or digit",
      );
    }
    if (o.rate === undefined) throw invalid("--all needs --rate N/s (e.g. --rate 50/s): a bulk redrive is always paced");
    const rate = parseRate(o.rate);
    const reason = o.reason === undefined ? undefined : parseChoice<DeadReason>(o.reason, "--reason", DEAD_REASONS);
    const olderThanMs = o.olderThan === undefined ? undefined : parseDuration(o.olderThan, "--older-than");
    const leaseMs = parseDuration(o.lease, "--lease", { min: 1_000, max: 86_400_000 });
    const owner = checkIdentifier(o.owner, "--owner", "VERQ_INVALID_ARGUMENT");
    const clock = clockFromEnv();
    const deadline = o.deadline === undefined ? undefined : clock.now() + parseDuration(o.deadline, "--deadline", { min: 1 });
    const json = o.json === true;
    if (o.dryRun === true) {
      return withStore(
        o.db,
        async (store) => {
          const queue = new JobQueue(store, { clock });
          const jobs: { id: string; reason: string | null; deadSince: number | null; token: number }[] = [];
          for await (const j of deadJobs(queue, bulkFilter({ reason, olderThanMs }, clock.now()))) {
            jobs.push({ id: j.id, reason: j.reason, deadSince: j.deadSince, token: j.token });
          }
          const seconds = Math.ceil((jobs.length * rate.windowMs) / rate.max / 1_000);
          emit(context.io, json, { dryRun: true, count: jobs.length, rate: formatRate(rate), jobs }, () =>
            [
              ...jobs.map((j) => `would redrive ${j.id} ${j.reason ?? ""} since ${iso(j.deadSince ?? 0)} token=${j.token}`),
              `dry run: ${jobs.length} dead jobs would be redriven at ${formatRate(rate)} (about ${seconds} s); nothing was changed`,
            ].join("\n"),
          );
          return EXIT.ok;
        },
        READ_ONLY,
      );
    }
    return withStore(o.db, async (store) => {
      const progress = await startProgress("redrive", { json });
      const stop = new AbortController();
      const off = onStopSignal(() => stop.abort());
      let report: BulkRedriveReport;
      try {
        report = await bulkRedrive(store, {
          note: o.note,
          rate,
          reason,
          olderThanMs,
          deadline,
          owner,
          leaseMs,
          clock,
          signal: stop.signal,
          onProgress: (c) =>
            progress.update(c.redriven + c.heldBack + c.skipped + c.failed, c.total, {
              redriven: c.redriven,
              "held back": c.heldBack,
              failed: c.failed,
            }),
        });
      } finally {
        progress.stop();
        off();
      }
      emit(context.io, json, report, () => summary(report));
      if (report.stopped === "lock-lost") {
        return reportError(
          context.io,
          json,
          new VerqError(
            "VERQ_LOCK_LOST",
            "the bulk redrive's lease ran out and another run took the lock over; this run stopped (every job is either redriven or untouched)",
          ),
        );
      }
      if (report.stopped === "interrupted") return EXIT.interrupted;
      return report.failed > 0 ? EXIT.failed : EXIT.ok;
    });
  });

/** The summary line of a bulk redrive. */
export function summary(r: BulkRedriveReport): string {
  const seconds = (r.elapsedMs / 1_000).toFixed(1);
  const head = r.stopped === "interrupted" ? "interrupted (a rerun continues): " : "";
  const failures =
    r.failures.length === 0
      ? ""
      : ` (${r.failures
          .slice(0, 10)
          .map((f) => `${f.id}: ${f.code}`)
          .join(", ")})`;
  return `${head}redriven ${r.redriven}, held back by the rate limit ${r.heldBack}, failed ${r.failed}${failures} in ${seconds} s; skipped ${r.skipped} no longer dead; ${r.total} matched`;
}
