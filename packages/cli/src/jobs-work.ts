import { checkHandledKinds, checkIdentifier, checkLeaseMs } from "@verq/core";
import {
  JobQueue,
  JobWorker,
  MAX_BATCH_SIZE,
  MAX_WORKER_ROUNDS,
  Schedules,
  type ClaimedJob,
  type FiredSlot,
  type JobWorkerReport,
  type JobWorkerResult,
} from "@verq/store";
import { createHttpSender } from "@verq/adapters/http";
import { failpoint } from "@verq/adapters/failpoints";
import { clockFromEnv } from "./clock-from-env.ts";
import { onStopSignal, untilStopSignal, parseDuration, parseHttpUrl, parseWholeNumber, runCommand, withStore } from "./common.ts";
import { EXIT } from "./exit-codes.ts";
import { openLogger, parseLogLevel } from "./cli-logger.ts";
import type { DbOptions, LogLevelOptions } from "./options.ts";
import { parseQueueNames } from "./queue-options.ts";
import { emit, reportError, type CliContext } from "./output.ts";

/** The longest HTTP timeout per delivery: above it, Node's timers would fire at once. */
const MAX_TIMEOUT_MS = 86_400_000;

/** One attempt as a line: its outcome, and for a failure what it failed with (identifiers only). */
function describeResult(r: JobWorkerResult): string {
  const failure =
    r.failure === null ? "" : ` failure=${r.failure.errorClass}${r.failure.code === null ? "" : `/${r.failure.code}`}`;
  if (r.outcome === "failed") {
    return `${r.id} token=${r.token} failed${failure} recorded=${r.accepted}; the job stays leased until its lease expires`;
  }
  return `${r.id} token=${r.token} outcome=${r.outcome} accepted=${r.accepted}${failure}`;
}

/** The options of `verq jobs work`. */
export interface WorkOptions extends DbOptions, LogLevelOptions {
  readonly target: string;
  readonly owner: string;
  readonly queue?: string;
  readonly kind?: readonly string[];
  readonly lease: string;
  readonly once?: boolean;
  readonly concurrency: string;
  readonly batchSize?: string;
  readonly rounds?: string;
  readonly exitWhenIdle?: boolean;
  readonly poll: string;
  readonly timeout: string;
}

/**
 * `verq jobs work`: a {@link JobWorker} that POSTs each job to `--target`; with `--kind`, only
 * jobs of those kinds (the others, kindless ones included, stay pending). Every option is
 * checked before the store is opened, so a bad one claims nothing and spends no attempt. The
 * failpoints `job.afterSend` (the answer is in, the outcome not yet recorded) and
 * `job.beforeFinish` (right before the transaction that records it) stop the process for crash
 * tests. Exit codes: 0 done (`--once` also when nothing was due); 1 a send failed unexpectedly
 * (a `BadAck`) under `--once` or `--exit-when-idle`, leaving its job leased; 2 a bad option.
 */
export const work = (context: CliContext, o: WorkOptions): Promise<void> => runCommand(context, o, () => runWorker(context, o));

async function runWorker(context: CliContext, o: WorkOptions): Promise<number> {
  const { io } = context;
  const json = o.json === true;
  // Everything is checked before the store is opened: a bad option claims nothing.
  const target = parseHttpUrl(o.target, "--target");
  const owner = checkIdentifier(o.owner, "--owner", "VERQ_INVALID_ARGUMENT");
  const queues = o.queue === undefined ? undefined : parseQueueNames(o.queue, "--queue");
  // Kind names only: the worker POSTs every job it claims to --target, whatever its kind.
  const kinds =
    o.kind === undefined ? undefined : checkHandledKinds({ names: o.kind.flatMap((k) => k.split(",")), kindless: false });
  const leaseMs = checkLeaseMs(parseDuration(o.lease, "--lease"));
  const concurrency = parseWholeNumber(o.concurrency, "--concurrency", { min: 1, max: MAX_BATCH_SIZE });
  const batchSize =
    o.batchSize === undefined ? concurrency : parseWholeNumber(o.batchSize, "--batch-size", { min: 1, max: MAX_BATCH_SIZE });
  const rounds = o.rounds === undefined ? undefined : parseWholeNumber(o.rounds, "--rounds", { min: 1, max: MAX_WORKER_ROUNDS });
  const idleMs = parseDuration(o.poll, "--poll", { min: 1, max: 3_600_000 });
  const timeoutMs = parseDuration(o.timeout, "--timeout", { min: 1, max: MAX_TIMEOUT_MS });
  const logLevel = parseLogLevel(o.logLevel);
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
    const logger = await openLogger(context, logLevel, "verq-worker");
    const queue = new JobQueue(store, { clock });
    const schedules = new Schedules(store, queue, { clock });
    const onFired = (fired: FiredSlot) => emit(io, json, { status: "scheduled", ...fired }, () => `scheduled ${fired.jobId}`);
    const worker = new JobWorker(queue, {
      owner,
      logger,
      ...(kinds === undefined ? { sender } : { handlers: kinds.names.map((kind) => ({ kind, handle: sender })) }),
      leaseMs,
      ...(queues === undefined ? {} : { queues }),
      idleMs,
      // --once is at most one job: one claim of one job, in one round.
      concurrency: once ? 1 : concurrency,
      batchSize: once ? 1 : batchSize,
      ...(once ? { rounds: 1 } : rounds === undefined ? {} : { rounds }),
      beforeRecord: () => failpoint("job.beforeFinish"),
      // The job stays leased and is recovered after its lease expires; the failure is shown, never hidden.
      onSendError: (_job, error) => reportError(io, json, error),
      onError: (error) => reportError(io, json, error),
      onFinished: (result) =>
        emit(io, json, { status: result.outcome === "failed" ? "failed" : "finished", ...result }, () => describeResult(result)),
    });
    let report: JobWorkerReport;
    // Due schedules first, so that a slot that is due now is among the jobs this run may take.
    for (const fired of await schedules.runDue()) onFired(fired);
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
      const scheduler = runSchedulesEvery(schedules, idleMs, onFired, (error) => reportError(io, json, error));
      await untilStopSignal();
      await scheduler.stop();
      report = await worker.stop();
    }
    // A handler that failed unexpectedly is counted in errors too.
    const failed = report.errors > 0;
    return failed && (once || o.exitWhenIdle === true) ? EXIT.failed : EXIT.ok;
  });
}

/**
 * Runs the due schedules every `everyMs` until stopped: one read of the active schedules a round
 * when none is due. An enqueue wakes the worker of this process at once. A failed round is
 * reported and the next one tries again.
 */
function runSchedulesEvery(
  schedules: Schedules,
  everyMs: number,
  onFired: (fired: FiredSlot) => void,
  onError: (error: unknown) => void,
): { stop(): Promise<void> } {
  let stopped = false;
  // Ends the pause of the round in progress, so that stop() does not wait a whole interval.
  const pause = { end: () => {} };
  const loop = (async () => {
    while (!stopped) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, everyMs);
        pause.end = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (stopped) return;
      try {
        for (const fired of await schedules.runDue()) onFired(fired);
      } catch (error) {
        onError(error);
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      pause.end();
      await loop;
    },
  };
}
