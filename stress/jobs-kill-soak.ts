/**
 * Kill soak for jobs (issue: process-level proof, part 6a). Several `verq jobs work` processes
 * deliver to one `verq receiver serve` process while random workers are SIGKILLed and
 * restarted; then the queue drains. Afterwards:
 * - every job is `done` or `dead` with a reason;
 * - the receiver's effect count equals the number of `done` jobs;
 * - no (job, token) was handed out twice (each job's claims carry tokens 1, 2, 3, … once each);
 * - no stale finish was accepted (every outcome carries the token of the claim before it);
 * - `verq check` finds nothing wrong with the queue's store (versions, tokens, finishes, projections).
 *
 * The queue's store is `--db`, as the CLI's `--db` takes it: a SQLite file or a PostgreSQL URL
 * (the soak's own temporary SQLite file by default). A PostgreSQL store must be empty: the soak
 * counts every job in it. The receiver keeps its own SQLite file beside the soak's other files.
 *
 * Run: npx tsx stress/jobs-kill-soak.ts [--jobs 10000] [--workers 4] [--kills 100] [--lease-ms 500] [--db <path or postgres://…>]
 */
import type { ChildProcess } from "node:child_process";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { JobQueue, MAX_BATCH_SIZE, openStore, type StoredEvent } from "@verq/store";
import { spawnVerq, startReceiver, tempDir } from "@verq/testing";
import { runStoreCheck, type StoreCheckResult } from "./store-check.ts";

export interface JobsKillSoakOptions {
  readonly jobs: number;
  /** The queue's store, as `--db` takes it (a SQLite path or a PostgreSQL URL); a fresh temporary SQLite file by default. */
  readonly db?: string;
  readonly workers: number;
  readonly kills: number;
  readonly leaseMs: number;
  /** Pause between two kills, in ms. */
  readonly killEveryMs: number;
  readonly log?: (line: string) => void;
}

export interface JobsKillSoakReport {
  /** The engine of the queue's store. */
  readonly engine: "sqlite" | "postgres";
  readonly jobs: number;
  readonly kills: number;
  readonly done: number;
  readonly dead: number;
  readonly deadWithoutReason: number;
  readonly reclaims: number;
  readonly staleFinishesRefused: number;
  readonly receiverRequests: number;
  readonly receiverEffects: number;
  readonly duplicatesStoppedAtReceiver: number;
  readonly duplicateClaims: number;
  readonly acceptedStaleFinishes: number;
  /** `verq check` of the queue's store once every worker has stopped. */
  readonly storeCheck: StoreCheckResult;
  readonly seconds: number;
}

const OUTCOME_EVENTS = new Set(["job.completed", "job.retryScheduled", "job.died"]);

/** Checks one job's stream: tokens 1..n once each, and every outcome for the current token. */
export function auditJobStream(events: readonly StoredEvent[]): { duplicateClaims: number; acceptedStaleFinishes: number } {
  let current = 0;
  let duplicateClaims = 0;
  let acceptedStaleFinishes = 0;
  for (const event of events) {
    const token = (event.data as { token?: number }).token;
    if (event.type === "job.claimed") {
      if (token !== current + 1) duplicateClaims++;
      current = token ?? current;
    } else if (OUTCOME_EVENTS.has(event.type) && token !== current) {
      acceptedStaleFinishes++;
    }
  }
  return { duplicateClaims, acceptedStaleFinishes };
}

export async function runJobsKillSoak(options: JobsKillSoakOptions): Promise<JobsKillSoakReport> {
  const log = options.log ?? (() => {});
  const started = Date.now();
  const dir = tempDir("verq-soak-");
  const queueDb = options.db ?? `${dir.path}/queue.sqlite`;
  const receiver = await startReceiver(`${dir.path}/receiver.sqlite`);
  const store = await openStore(queueDb);
  const workers: ChildProcess[] = [];
  try {
    const queue = new JobQueue(store);
    // In batches: one commit per batch, not per job, which a PostgreSQL server's fsync makes slow.
    for (let from = 0; from < options.jobs; from += MAX_BATCH_SIZE) {
      const ids = Array.from({ length: Math.min(MAX_BATCH_SIZE, options.jobs - from) }, (_, i) => soakId(from + i));
      await queue.enqueueMany(ids.map((id) => ({ id, payload: { quantity: 1 }, maxAttempts: 1_000 })));
    }
    log(`enqueued ${options.jobs} jobs`);
    const working = new Set<ChildProcess>();
    const startWorker = (slot: number): ChildProcess => {
      const child = spawnVerq([
        "jobs",
        "work",
        "--db",
        queueDb,
        "--target",
        receiver.url,
        "--owner",
        `w${slot}`,
        "--lease",
        `${options.leaseMs}ms`,
        "--poll",
        "20ms",
        "--concurrency",
        "2",
      ]);
      // A worker counts as working once it has reported a finished job: kills then land mid-work.
      child.stdout?.once("data", () => working.add(child));
      child.stdout?.resume();
      child.stderr?.resume();
      return child;
    };
    for (let slot = 0; slot < options.workers; slot++) workers.push(startWorker(slot));

    let kills = 0;
    while (kills < options.kills) {
      await sleep(options.killEveryMs * (0.5 + Math.random()));
      const candidates = workers.filter((w) => working.has(w));
      const victim = candidates[Math.floor(Math.random() * candidates.length)];
      if (victim === undefined) {
        const s = await queue.stats();
        if (s.byState.pending === 0 && s.byState.leased === 0) break; // nothing left to interrupt
        continue;
      }
      const slot = workers.indexOf(victim);
      victim.kill("SIGKILL");
      await new Promise((resolve) =>
        victim.exitCode !== null || victim.signalCode !== null ? resolve(null) : victim.once("exit", resolve),
      );
      kills++;
      workers[slot] = startWorker(slot);
      if (kills % 10 === 0) log(`kills=${kills}`);
    }

    // Drain: no more kills; wait until nothing is pending or leased.
    for (;;) {
      const s = await queue.stats();
      if (s.byState.pending === 0 && s.byState.leased === 0) break;
      await sleep(100);
    }
    for (const w of workers) w.kill("SIGTERM");
    await Promise.all(
      workers.map(
        (w) => new Promise((resolve) => (w.exitCode !== null || w.signalCode !== null ? resolve(null) : w.once("exit", resolve))),
      ),
    );

    const stats = await queue.stats();
    const counts = (await (await fetch(`${receiver.url}inventory`)).json()) as { requests: number; effects: number };
    let duplicateClaims = 0;
    let acceptedStaleFinishes = 0;
    for (let i = 0; i < options.jobs; i++) {
      const audit = auditJobStream(await queue.history(soakId(i)));
      duplicateClaims += audit.duplicateClaims;
      acceptedStaleFinishes += audit.acceptedStaleFinishes;
    }
    const deadRows = await queue.list("dead", { limit: options.jobs });
    const storeCheck = await runStoreCheck(queueDb);
    log(`verq check: ${storeCheck.ok ? "ok" : storeCheck.findings.join("; ")}`);
    return {
      engine: store.dialect.name,
      jobs: stats.total,
      kills,
      done: stats.byState.done,
      dead: stats.byState.dead,
      deadWithoutReason: deadRows.filter((j) => j.reason === null).length,
      reclaims: stats.leaseExpiries,
      staleFinishesRefused: stats.staleFinishesRefused,
      receiverRequests: counts.requests,
      receiverEffects: counts.effects,
      duplicatesStoppedAtReceiver: counts.requests - counts.effects,
      duplicateClaims,
      acceptedStaleFinishes,
      storeCheck,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill("SIGKILL");
    await store.close();
    await receiver.stop();
    dir.remove();
  }
}

function soakId(i: number): string {
  return `soak-${String(i).padStart(6, "0")}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      jobs: { type: "string", default: "10000" },
      workers: { type: "string", default: "4" },
      kills: { type: "string", default: "100" },
      "lease-ms": { type: "string", default: "500" },
      "kill-every-ms": { type: "string", default: "300" },
      db: { type: "string" },
    },
  });
  const report = await runJobsKillSoak({
    ...(values.db === undefined ? {} : { db: values.db }),
    jobs: Number(values.jobs),
    workers: Number(values.workers),
    kills: Number(values.kills),
    leaseMs: Number(values["lease-ms"]),
    killEveryMs: Number(values["kill-every-ms"]),
    log: (line) => console.error(line),
  });
  console.log(JSON.stringify(report, null, 2));
  const ok =
    report.done + report.dead === report.jobs &&
    report.deadWithoutReason === 0 &&
    report.receiverEffects === report.done &&
    report.duplicateClaims === 0 &&
    report.acceptedStaleFinishes === 0 &&
    report.storeCheck.ok;
  console.log(ok ? "PASS" : "FAIL");
  process.exitCode = ok ? 0 : 1;
}
