/**
 * Failover under load: `verq jobs work` processes deliver jobs to a `verq receiver serve` process
 * while a producer enqueues, all through the HAProxy port of a three-node Patroni cluster; when
 * a quarter of the jobs are done, the primary is lost (its Patroni and its server SIGKILLed, so a
 * replica is promoted) or switched over with `patronictl`. Once the cluster settles and the queue
 * drains:
 * - every enqueue the producer saw acknowledged is a job in the store (synchronous replication);
 * - every job is done, and the receiver counts each job's effect once;
 * - no (job, token) was handed out twice and tokens never went back (each job's claims carry
 *   tokens 1, 2, 3, … once each, every outcome the token of the claim before it);
 * - `verq check` of the store on the new primary finds nothing;
 * - the wake-ups of another store follow the new primary: an enqueue committed there wakes its
 *   listener (its listening connection was cut with the old primary and opened again);
 * - and the time from the kill to the first job completed on the new primary is measured (the
 *   first `job.completed` event on the new primary decided after the kill).
 *
 * Run: pnpm ha-cluster start, then
 *   NODE_OPTIONS=--conditions=verq-source npx tsx stress/jobs-failover.ts --db <the cluster's url> [--jobs 3000] [--workers 3] [--event kill|switchover]
 */
import type { ChildProcess } from "node:child_process";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { JOB_STREAM } from "@verq/core";
import { JobQueue, MAX_BATCH_SIZE, openStore, readAllEvents, type StoredEvent } from "@verq/store";
import { spawnVerq, startReceiver, tempDir } from "@verq/testing";
import { auditJobStream } from "./jobs-kill-soak.ts";
import { runStoreCheck, type StoreCheckResult } from "./store-check.ts";

/** What is done to the primary. */
export type FailoverEvent = "kill" | "switchover";

export interface JobsFailoverOptions {
  /** The store, through the cluster's HAProxy write port; its database must hold no verq jobs yet. */
  readonly db: string;
  readonly jobs: number;
  readonly workers: number;
  /**
   * Loses the primary, and resolves with the new primary's name once writes go through again;
   * `lostAt`, when the old primary was gone for sure (its processes ended), else when the new one took writes.
   */
  readonly fail: () => Promise<{ from: string; to: string; lostAt?: number }>;
  readonly event: FailoverEvent;
  /** How long the producer goes on enqueueing after the new primary took writes, in ms. */
  readonly produceAfterMs?: number;
  readonly log?: (line: string) => void;
}

export interface JobsFailoverReport {
  readonly event: FailoverEvent;
  readonly from: string;
  readonly to: string;
  /** Jobs in the store at the end: the initial ones and every one the producer got in. */
  readonly jobs: number;
  readonly produced: number;
  /** Enqueues that failed (the producer tries the same id again): not acknowledged, each may or may not be there. */
  readonly enqueueErrors: number;
  readonly acknowledgedMissing: number;
  readonly done: number;
  readonly receiverEffects: number;
  readonly duplicatesStoppedAtReceiver: number;
  readonly duplicateClaims: number;
  readonly acceptedStaleFinishes: number;
  readonly workerErrors: number;
  /** From the loss of the primary to the first job completed on the new one, in ms. */
  readonly killToFirstDoneMs: number | null;
  /** From the loss of the primary to the first write that went through again, in ms. */
  readonly killToWritableMs: number;
  /** From then to the first wake-up another store's listener heard from the new primary, in ms; null for none. */
  readonly writableToWakeupMs: number | null;
  readonly storeCheck: StoreCheckResult;
  readonly seconds: number;
}

export async function runJobsFailover(options: JobsFailoverOptions): Promise<JobsFailoverReport> {
  const log = options.log ?? (() => {});
  const started = Date.now();
  const dir = tempDir("verq-failover-");
  const receiver = await startReceiver(`${dir.path}/receiver.sqlite`);
  // A minute to get a connection back: a failover takes seconds, and nothing here may give up during one.
  const store = await openStore({ url: options.db, reconnectMs: 60_000 });
  // Another store's listener: what it hears after the failover came from the new primary.
  const listener = await openStore({ url: options.db, reconnectMs: 60_000 });
  const wakeups: number[] = [];
  const unsubscribe = listener.dialect.wakeups.subscribe("jobs", () => wakeups.push(Date.now()));
  const workers: ChildProcess[] = [];
  let workerErrors = 0;
  try {
    const queue = new JobQueue(store);
    for (let from = 0; from < options.jobs; from += MAX_BATCH_SIZE) {
      const ids = Array.from(
        { length: Math.min(MAX_BATCH_SIZE, options.jobs - from) },
        (_, i) => `job-${String(from + i).padStart(6, "0")}`,
      );
      await queue.enqueueMany(ids.map((id) => ({ id, payload: { quantity: 1 }, maxAttempts: 1_000 })));
    }
    log(`enqueued ${options.jobs} jobs`);
    for (let slot = 0; slot < options.workers; slot++) {
      const child = spawnVerq([
        "jobs",
        "work",
        "--db",
        options.db,
        "--target",
        receiver.url,
        "--owner",
        `w${slot}`,
        "--lease",
        "3s",
        "--poll",
        "500ms",
        "--concurrency",
        "4",
      ]);
      child.stdout?.resume();
      child.stderr?.on("data", (chunk: Buffer) => {
        const lines = chunk
          .toString()
          .split("\n")
          .filter((line) => line.includes("VERQ_"));
        workerErrors += lines.length;
        for (const line of lines) log(`worker w${slot}: ${line}`);
      });
      workers.push(child);
    }

    // The producer: one job after another, each acknowledged only when its enqueue returned.
    const acknowledged: string[] = [];
    let enqueueErrors = 0;
    let producing = true;
    const producer = (async () => {
      for (let n = 0; producing; n++) {
        const id = `produced-${String(n).padStart(6, "0")}`;
        for (;;) {
          try {
            await queue.enqueue({ id, payload: { quantity: 1 }, maxAttempts: 1_000 });
            acknowledged.push(id);
            break;
          } catch (error) {
            enqueueErrors++;
            log(`enqueue of ${id} failed: ${error instanceof Error ? error.message : String(error)}`);
            await sleep(200);
          }
        }
        await sleep(5);
      }
    })();

    await until(async () => (await queue.stats()).byState.done >= options.jobs / 4, 120_000);
    const failedAt = Date.now();
    const { from, to, lostAt: gone } = await options.fail();
    const writableAt = Date.now();
    const lostAt = gone ?? writableAt;
    const killToWritableMs = writableAt - failedAt;
    log(`${options.event}: ${from} -> ${to} in ${killToWritableMs} ms`);
    await sleep(options.produceAfterMs ?? 3_000);
    producing = false;
    await producer;

    const total = options.jobs + acknowledged.length;
    await until(async () => {
      const s = await queue.stats();
      return s.byState.pending === 0 && s.byState.leased === 0 && s.total >= total;
    }, 180_000);
    for (const w of workers) w.kill("SIGTERM");
    await Promise.all(workers.map(exited));

    const stats = await queue.stats();
    let acknowledgedMissing = 0;
    for (const id of acknowledged) if ((await queue.get(id)) === null) acknowledgedMissing++;
    const events = await readAllEvents(store.db, JOB_STREAM);
    const byJob = new Map<string, StoredEvent[]>();
    for (const event of events) {
      const stream = byJob.get(event.streamId);
      if (stream === undefined) byJob.set(event.streamId, [event]);
      else stream.push(event);
    }
    let duplicateClaims = 0;
    let acceptedStaleFinishes = 0;
    for (const stream of byJob.values()) {
      const audit = auditJobStream(stream);
      duplicateClaims += audit.duplicateClaims;
      acceptedStaleFinishes += audit.acceptedStaleFinishes;
    }
    // Decided once the old primary was gone: committed on the new one.
    let firstDone: number | null = null;
    for (const e of events)
      if (e.type === "job.completed" && e.at >= lostAt && (firstDone === null || e.at < firstDone)) firstDone = e.at;
    const counts = (await (await fetch(`${receiver.url}inventory`)).json()) as { requests: number; effects: number };
    const wokenAfter = wakeups.find((at) => at >= writableAt);
    const storeCheck = await runStoreCheck(options.db);
    log(`verq check: ${storeCheck.ok ? "ok" : storeCheck.findings.join("; ")}`);
    return {
      event: options.event,
      from,
      to,
      jobs: stats.total,
      produced: acknowledged.length,
      enqueueErrors,
      acknowledgedMissing,
      done: stats.byState.done,
      receiverEffects: counts.effects,
      duplicatesStoppedAtReceiver: counts.requests - counts.effects,
      duplicateClaims,
      acceptedStaleFinishes,
      workerErrors,
      killToFirstDoneMs: firstDone === null ? null : firstDone - failedAt,
      killToWritableMs,
      writableToWakeupMs: wokenAfter === undefined ? null : wokenAfter - writableAt,
      storeCheck,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill("SIGKILL");
    unsubscribe();
    await listener.close();
    await store.close();
    await receiver.stop();
    dir.remove();
  }
}

/** True when every rule of the run held. */
export function failoverPassed(report: JobsFailoverReport): boolean {
  return (
    report.acknowledgedMissing === 0 &&
    report.done === report.jobs &&
    report.receiverEffects === report.jobs &&
    report.duplicateClaims === 0 &&
    report.acceptedStaleFinishes === 0 &&
    report.storeCheck.ok &&
    report.writableToWakeupMs !== null &&
    report.killToFirstDoneMs !== null
  );
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve()),
  );
}

async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition().catch(() => false))) {
    if (Date.now() > end) throw new Error(`not reached within ${timeoutMs} ms`);
    await sleep(100);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      jobs: { type: "string", default: "10000" },
      workers: { type: "string", default: "3" },
      event: { type: "string", default: "kill" },
    },
  });
  const event = values.event === "switchover" ? "switchover" : "kill";
  // A cluster of the run's own, from nothing, stopped at the end.
  const { startHaCluster } = await import("@verq/testing");
  const cluster = await startHaCluster();
  try {
    const report = await runJobsFailover({
      db: cluster.url,
      jobs: Number(values.jobs),
      workers: Number(values.workers),
      event,
      fail: async () => {
        if (event === "switchover") return cluster.switchover();
        const { killed } = await cluster.killPrimary();
        const lostAt = Date.now();
        return { from: killed, to: await cluster.waitForPrimary(killed), lostAt };
      },
      log: (line) => console.error(line),
    });
    console.log(JSON.stringify(report, null, 2));
    console.log(failoverPassed(report) ? "PASS" : "FAIL");
    process.exitCode = failoverPassed(report) ? 0 : 1;
  } finally {
    await cluster.stop();
  }
}
