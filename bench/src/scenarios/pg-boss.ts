/**
 * pg-boss 10 on PostgreSQL, the baseline measured beside verq in the same run.
 *
 * - 1a: `size.jobs` `boss.send` calls, each awaited before the next.
 * - 1b: `size.jobs` jobs through `boss.insert`, 1,000 per call.
 * - 2d: `size.jobs` no-op jobs inserted beforehand (not timed); timed from `boss.work` with
 *   batchSize 8 until no job of the queue is short of `completed`.
 * - 2g: the same, worked by `PROCESSES` processes (`pg-boss-child.ts`), each its own pg-boss
 *   with one such worker, started together after their start-up; timed until they have handled
 *   every job and none is short of `completed`.
 * - 3: one job sent every 5 ms while that worker runs; per job, the time from just before
 *   `send` to the start of the handler; p50 and p99.
 *
 * The rows of 1a, 1b, 2d and 3 stand beside verq on SQLite (its embedded default) and also, in
 * 1c, 1d, 2f and 3b, beside verq on PostgreSQL. How the worker fetches (and why it calls
 * `notifyWorker`) is in `pg-boss-worker.ts`; the `settings` strings say so.
 *
 * Each run starts pg-boss (a pool of `POOL_SIZE`) on a bench-only schema of this process,
 * dropped before and after, with a fresh queue, and stops pg-boss gracefully, closing its pool.
 */
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import PgBoss from "pg-boss";
import { admin } from "@verq/testing";
import { drainWithChildren } from "../drain-with-children.ts";
import {
  PG_GROUPS,
  POOL_SIZE,
  PROCESSES,
  postgresAvailable,
  postgresDurability,
  TEST_POSTGRES_URL,
} from "../postgres-settings.ts";
import { BATCH_SIZE, startWorker, WORKER, type JobData } from "../pg-boss-worker.ts";
import { lower, perSecond, percentile, since } from "../scenario.ts";
import type { BenchSize, Figure, Scenario } from "../scenario.ts";

/** A schema of this process's own: two benches on one server (two checkouts) must not drop each other's. */
const SCHEMA = `verq_bench_pgboss_${process.pid}`;
const BULK = 1_000;
const LATENCY_GAP_MS = 5;
/** How often the run checks whether the last `complete` calls have landed. */
const COMPLETION_POLL_MS = 2;

const dropSchema = (): Promise<unknown> => admin(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);

let queueSeq = 0;
const freshQueueName = (what: string): string => `verq-bench-${what}-${process.pid}-${Date.now().toString(36)}-${queueSeq++}`;

/**
 * Runs `body` with a started pg-boss on a freshly created bench schema and a fresh queue, then
 * stops pg-boss gracefully (closing its pool) and drops the schema.
 */
async function withBoss<T>(what: string, body: (boss: PgBoss, name: string) => Promise<T>): Promise<T> {
  await dropSchema();
  const boss = new PgBoss({ connectionString: TEST_POSTGRES_URL, schema: SCHEMA, max: POOL_SIZE });
  let failure: Error | undefined;
  boss.on("error", (err) => {
    failure ??= err;
  });
  try {
    await boss.start();
    const name = freshQueueName(what);
    await boss.createQueue(name);
    const result = await body(boss, name);
    if (failure !== undefined) throw failure;
    return result;
  } finally {
    try {
      await boss.stop({ graceful: true, close: true, wait: true });
    } finally {
      await dropSchema();
    }
  }
}

async function insertInBulk(boss: PgBoss, name: string, count: number): Promise<void> {
  for (let from = 0; from < count; from += BULK) {
    const batch: PgBoss.JobInsert<JobData>[] = [];
    for (let i = from; i < Math.min(count, from + BULK); i++) batch.push({ name, data: { i } });
    await boss.insert(batch);
  }
}

/** Resolves once no job of the queue is still created, retried or active (pg-boss completes without waiting). */
async function allCompleted(boss: PgBoss, name: string): Promise<void> {
  while ((await boss.getQueueSize(name, { before: "completed" })) !== 0) await sleep(COMPLETION_POLL_MS);
}

async function enqueueOneByOne(size: BenchSize): Promise<Record<string, Figure>> {
  return withBoss("send", async (boss, name) => {
    const start = performance.now();
    for (let i = 0; i < size.jobs; i++) await boss.send(name, { i });
    return { "jobs/s": perSecond(size.jobs, since(start)) };
  });
}

async function enqueueInBulk(size: BenchSize): Promise<Record<string, Figure>> {
  return withBoss("insert", async (boss, name) => {
    const start = performance.now();
    await insertInBulk(boss, name, size.jobs);
    return { "jobs/s": perSecond(size.jobs, since(start)) };
  });
}

async function drainConcurrently(size: BenchSize): Promise<Record<string, Figure>> {
  return withBoss("drain", async (boss, name) => {
    await insertInBulk(boss, name, size.jobs);
    let handled = 0;
    let allHandled: () => void = () => {};
    const everyJobHandled = new Promise<void>((resolve) => {
      allHandled = resolve;
    });
    const start = performance.now();
    await startWorker(boss, name, () => {
      if (++handled === size.jobs) allHandled();
    });
    await everyJobHandled;
    await allCompleted(boss, name);
    return { "jobs/s": perSecond(size.jobs, since(start)) };
  });
}

async function latencyAtLightLoad(size: BenchSize): Promise<Record<string, Figure>> {
  const count = size.quick ? 100 : 1000;
  return withBoss("latency", async (boss, name) => {
    const sentAt = new Array<number>(count);
    const startedAt = new Array<number>(count);
    let started = 0;
    let allStarted: () => void = () => {};
    const everyJobStarted = new Promise<void>((resolve) => {
      allStarted = resolve;
    });
    await startWorker(boss, name, ({ i }) => {
      startedAt[i] = performance.now();
      if (++started === count) allStarted();
    });
    await sleep(200); // let the worker's first (empty) fetch pass, as for a worker that has been idle
    const begin = performance.now();
    for (let i = 0; i < count; i++) {
      sentAt[i] = performance.now();
      await boss.send(name, { i });
      const wait = begin + (i + 1) * LATENCY_GAP_MS - performance.now();
      if (wait > 0) await sleep(wait);
    }
    await everyJobStarted;
    await allCompleted(boss, name);
    const samples = startedAt.map((t, i) => t - (sentAt[i] ?? Number.NaN));
    return { "p50 ms": lower(percentile(samples, 50), "ms"), "p99 ms": lower(percentile(samples, 99), "ms") };
  });
}

async function drainInProcesses(size: BenchSize): Promise<Record<string, Figure>> {
  return withBoss("processes", async (boss, name) => {
    await insertInBulk(boss, name, size.jobs);
    const script = fileURLToPath(new URL("../pg-boss-child.ts", import.meta.url));
    const { wallMs } = await drainWithChildren(
      script,
      () => [TEST_POSTGRES_URL, SCHEMA, name, String(POOL_SIZE)],
      PROCESSES,
      size.jobs,
      () => boss.getQueueSize(name, { before: "completed" }),
    );
    return { "jobs/s": perSecond(size.jobs, wallMs) };
  });
}

const system = "pg-boss";
const available = postgresAvailable;
const oneProcess = { processes: 1, concurrency: BATCH_SIZE, poolSize: POOL_SIZE } as const;
const enqueuer = { processes: 1, concurrency: "none (enqueue only)", poolSize: POOL_SIZE } as const;

export function pgBossScenarios(): Scenario[] {
  return [
    {
      group: "1a. enqueue, one at a time",
      alsoIn: [PG_GROUPS.enqueueOne],
      system,
      postgres: enqueuer,
      get settings() {
        return `boss.send awaited one by one, default queue policy and job options; ${postgresDurability()}`;
      },
      available,
      run: enqueueOneByOne,
    },
    {
      group: "1b. enqueue, in bulk",
      alsoIn: [PG_GROUPS.enqueueBulk],
      system,
      postgres: enqueuer,
      get settings() {
        return `boss.insert, ${BULK.toLocaleString("en")} jobs per call; ${postgresDurability()}`;
      },
      available,
      run: enqueueInBulk,
    },
    {
      group: "2d. processing, concurrency 8 in one process",
      alsoIn: [PG_GROUPS.oneProcess],
      system,
      get settings() {
        return `${WORKER}, no-op handler, timed until no job is short of completed (pg-boss completes in the background); ${postgresDurability()}`;
      },
      postgres: oneProcess,
      available,
      run: drainConcurrently,
    },
    {
      group: PG_GROUPS.processes,
      system,
      get settings() {
        return `${PROCESSES} processes, each its own pg-boss (default maintenance) with ${WORKER}, started together after their start-up, no-op handler, timed until no job is short of completed; ${postgresDurability()}`;
      },
      postgres: { processes: PROCESSES, concurrency: BATCH_SIZE, poolSize: POOL_SIZE },
      available,
      run: drainInProcesses,
    },
    {
      group: "3. enqueue→start latency at light load",
      alsoIn: [PG_GROUPS.latency],
      system,
      postgres: oneProcess,
      get settings() {
        return `one job every ${LATENCY_GAP_MS} ms, ${WORKER}; ${postgresDurability()}`;
      },
      available,
      run: latencyAtLightLoad,
    },
  ];
}
