/**
 * graphile-worker 0.17 on PostgreSQL, a baseline measured beside verq on the same server in the
 * same run, at its documented throughput settings (`graphile-worker-options.ts`).
 *
 * - 1c: `size.jobs` `addJob` calls of WorkerUtils, each awaited before the next.
 * - 1d: `size.jobs` jobs through `addJobs`, 1,000 per call.
 * - 2f: `size.jobs` no-op jobs added beforehand (not timed); timed from `run()` in this process
 *   (the pool already open) until every job has been handled and the `jobs` view is empty
 *   (graphile-worker deletes a job once its completion has landed, batched here).
 * - 2g: the same with `PROCESSES` worker processes started together after their start-up.
 *   2f and 2g report what the run cost per job beside the rate (`postgres-cost.ts`): in 2f the
 *   progress checks use a connection of their own, not counted.
 * - 3b: one job added every 5 ms (`addJob`, as verq's 3b enqueues) while a runner at its defaults
 *   (concurrency 8) waits in this process; per job, the time from just before `addJob` to the
 *   start of the task; p50 and p99, and what the adds and the runner cost per job together.
 *
 * The local queue is measured at three sizes: `concurrency + 1`, the documented starting point;
 * 100, the batch size of verq's rows; and 500, its performance page's setting (the docs advise
 * a much larger queue than the starting point for very fast tasks, which these no-op tasks are).
 *
 * Every run migrates a schema of its own (`schema` option) and drops it afterwards.
 */
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { makeWorkerUtils, run, runMigrations, type AddJobsJobSpec, type WorkerUtils } from "graphile-worker";
import { admin } from "@verq/testing";
import { drainWithChildren } from "../drain-with-children.ts";
import {
  graphileRunnerOptions,
  openGraphileClient,
  openGraphilePool,
  quietLogger,
  TASK,
  type GraphileClient,
  type GraphilePool,
} from "../graphile-worker-options.ts";
import { addCosts, COST_METHOD, costFigures, meterPostgres } from "../postgres-cost.ts";
import {
  CONCURRENCY,
  PG_GROUPS,
  POOL_SIZE,
  PROCESSES,
  postgresAvailable,
  postgresDurability,
  TEST_POSTGRES_URL,
} from "../postgres-settings.ts";
import { lower, percentile, perSecond, since, type BenchSize, type Figure, type Scenario } from "../scenario.ts";
import { LATENCY_GAP_MS } from "./verq-jobs.ts";

const BULK = 1_000;
/** The documented starting point for the local queue (concurrency + 1), verq's batch size, and the performance page's 500. */
const LOCAL_QUEUE_SIZES = [CONCURRENCY + 1, 100, 500] as const;
/** How often the run checks whether the last batched completions have landed. */
const COMPLETION_POLL_MS = 2;
/** A latency run whose jobs have not all started by then has hung: it fails instead of holding the bench. */
const LATENCY_GIVE_UP_MS = 120_000;

let schemaSeq = 0;

interface Bench {
  readonly pool: GraphilePool;
  readonly utils: WorkerUtils;
  readonly schema: string;
}

/** Runs `body` on a freshly migrated schema of its own with an open pool, then drops the schema. */
async function withSchema<T>(body: (bench: Bench) => Promise<T>): Promise<T> {
  const schema = `verq_bench_graphile_${process.pid}_${schemaSeq++}`;
  const pool = await openGraphilePool(TEST_POSTGRES_URL, POOL_SIZE);
  try {
    await runMigrations({ pgPool: pool, schema, logger: quietLogger });
    const utils = await makeWorkerUtils({ pgPool: pool, schema, logger: quietLogger });
    try {
      return await body({ pool, utils, schema });
    } finally {
      await utils.release();
    }
  } finally {
    await pool.end();
    await admin(`drop schema if exists ${schema} cascade`);
  }
}

async function addInBulk(utils: WorkerUtils, count: number): Promise<void> {
  for (let from = 0; from < count; from += BULK) {
    const specs: AddJobsJobSpec[] = [];
    for (let i = from; i < Math.min(count, from + BULK); i++) specs.push({ identifier: TASK, payload: { i } });
    await utils.addJobs(specs);
  }
}

/** Jobs not yet deleted: pending, running, or handled with their completion not yet landed. */
async function remaining(on: GraphileClient | GraphilePool, schema: string): Promise<number> {
  const result = await on.query(`select count(*)::int as n from ${schema}.jobs`);
  return Number((result.rows[0] as { n: number } | undefined)?.n ?? Number.NaN);
}

async function enqueueOneByOne(size: BenchSize): Promise<Figure> {
  return withSchema(async ({ utils }) => {
    const start = performance.now();
    for (let i = 0; i < size.jobs; i++) await utils.addJob(TASK, { i });
    return perSecond(size.jobs, since(start));
  });
}

async function enqueueInBulk(size: BenchSize): Promise<Figure> {
  return withSchema(async ({ utils }) => {
    const start = performance.now();
    await addInBulk(utils, size.jobs);
    return perSecond(size.jobs, since(start));
  });
}

async function drainInProcess(size: BenchSize, localQueueSize: number): Promise<Record<string, Figure>> {
  return withSchema(async (bench) => {
    await addInBulk(bench.utils, size.jobs);
    let handled = 0;
    let allHandled: () => void = () => {};
    const everyJobHandled = new Promise<void>((resolve) => {
      allHandled = resolve;
    });
    const observer = await openGraphileClient(TEST_POSTGRES_URL);
    try {
      const stopMeter = meterPostgres([observer]);
      const start = performance.now();
      const runner = await run(
        graphileRunnerOptions(
          { pool: bench.pool, schema: bench.schema, concurrency: CONCURRENCY, localQueueSize },
          {
            [TASK]: () => {
              if (++handled === size.jobs) allHandled();
            },
          },
        ),
      );
      try {
        await everyJobHandled;
        while ((await remaining(observer, bench.schema)) > 0) await sleep(COMPLETION_POLL_MS);
        const ms = since(start);
        return { "jobs/s": perSecond(size.jobs, ms), ...costFigures(stopMeter(), size.jobs) };
      } finally {
        stopMeter();
        await runner.stop();
      }
    } finally {
      await observer.end();
    }
  });
}

async function drainInProcesses(size: BenchSize, localQueueSize: number): Promise<Record<string, Figure>> {
  return withSchema(async (bench) => {
    await addInBulk(bench.utils, size.jobs);
    const script = fileURLToPath(new URL("../graphile-worker-child.ts", import.meta.url));
    const { wallMs, reports } = await drainWithChildren(
      script,
      () => [TEST_POSTGRES_URL, bench.schema, String(CONCURRENCY), String(localQueueSize), String(POOL_SIZE)],
      PROCESSES,
      size.jobs,
      () => remaining(bench.pool, bench.schema),
    );
    const costs = reports.map((r) => r.cost);
    if (costs.some((c) => c === undefined)) throw new Error("graphile-worker: a worker process did not report its cost");
    return { "jobs/s": perSecond(size.jobs, wallMs), ...costFigures(addCosts(costs.filter((c) => c !== undefined)), size.jobs) };
  });
}

/** One job every `LATENCY_GAP_MS` ms to a runner at its defaults (concurrency 8) in this process; enqueue→start p50 and p99. */
async function latencyAtLightLoad(size: BenchSize): Promise<Record<string, Figure>> {
  const count = size.quick ? 100 : 1_000;
  return withSchema(async (bench) => {
    const sentAt = new Array<number>(count);
    const startedAt = new Array<number>(count);
    let started = 0;
    let allStarted: () => void = () => {};
    const everyJobStarted = new Promise<void>((resolve) => {
      allStarted = resolve;
    });
    const runner = await run({
      pgPool: bench.pool,
      schema: bench.schema,
      concurrency: CONCURRENCY,
      noHandleSignals: true,
      logger: quietLogger,
      crontab: "",
      taskList: {
        [TASK]: (payload) => {
          startedAt[(payload as { i: number }).i] = performance.now();
          if (++started === count) allStarted();
        },
      },
    });
    try {
      await sleep(200); // let the runner's first (empty) fetch pass, as for a worker that has been idle
      const stopMeter = meterPostgres();
      for (let i = 0; i < count; i++) {
        sentAt[i] = performance.now();
        await bench.utils.addJob(TASK, { i });
        await sleep(LATENCY_GAP_MS);
      }
      let timer: NodeJS.Timeout | undefined;
      const giveUp = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`graphile-worker: ${count - started} of ${count} jobs had not started in time`)),
          LATENCY_GIVE_UP_MS,
        );
      });
      await Promise.race([everyJobStarted, giveUp]).finally(() => clearTimeout(timer));
      const cost = stopMeter();
      const samples = startedAt.map((t, i) => t - (sentAt[i] ?? Number.NaN));
      return {
        "p50 ms": lower(percentile(samples, 50), "ms"),
        "p99 ms": lower(percentile(samples, 99), "ms"),
        ...costFigures(cost, count),
      };
    } finally {
      await runner.stop();
    }
  });
}

const system = "graphile-worker";
const perRun = "a schema of its own per run (migrated, then dropped)";
const tuned = (localQueueSize: number): string =>
  `concurrency ${CONCURRENCY}, localQueue.size ${localQueueSize}, completeJobBatchDelay 0, failJobBatchDelay 0, pollInterval 2,000 ms (default: new jobs are announced by LISTEN/NOTIFY), prepared statements on, a pool of ${POOL_SIZE} passed as pgPool (maxPoolSize's default; the docs ask for max(10, concurrency + 2))`;

export function graphileWorkerScenarios(): Scenario[] {
  const available = postgresAvailable;
  const enqueuer = { processes: 1, concurrency: "none (enqueue only)", poolSize: POOL_SIZE } as const;
  return [
    {
      group: PG_GROUPS.enqueueOne,
      system,
      get settings() {
        return `WorkerUtils.addJob awaited one by one; ${perRun}; ${postgresDurability()}`;
      },
      postgres: enqueuer,
      available,
      run: async (size) => ({ "jobs/s": await enqueueOneByOne(size) }),
    },
    {
      group: PG_GROUPS.enqueueBulk,
      system,
      get settings() {
        return `WorkerUtils.addJobs, ${BULK.toLocaleString("en")} jobs per call; ${perRun}; ${postgresDurability()}`;
      },
      postgres: enqueuer,
      available,
      run: async (size) => ({ "jobs/s": await enqueueInBulk(size) }),
    },
    ...LOCAL_QUEUE_SIZES.map((localQueueSize): Scenario => ({
      group: PG_GROUPS.oneProcess,
      system: `graphile-worker (localQueue ${localQueueSize})`,
      get settings() {
        return `run() in this process, ${tuned(localQueueSize)}, no-op task, timed from run() until the jobs view is empty (checked on a connection of its own); ${COST_METHOD}; ${perRun}; ${postgresDurability()}`;
      },
      postgres: { processes: 1, concurrency: CONCURRENCY, poolSize: POOL_SIZE },
      available,
      run: (size) => drainInProcess(size, localQueueSize),
    })),
    ...LOCAL_QUEUE_SIZES.map((localQueueSize): Scenario => ({
      group: PG_GROUPS.processes,
      system: `graphile-worker (localQueue ${localQueueSize})`,
      get settings() {
        return `${PROCESSES} processes, each run() with ${tuned(localQueueSize)}, started together after their start-up, no-op task, timed until the jobs view is empty; ${COST_METHOD}, summed over the processes, each from "go" until it is told to stop; ${perRun}; ${postgresDurability()}`;
      },
      postgres: { processes: PROCESSES, concurrency: CONCURRENCY, poolSize: POOL_SIZE },
      available,
      run: (size) => drainInProcesses(size, localQueueSize),
    })),
    {
      group: PG_GROUPS.latency,
      system,
      get settings() {
        return `one job every ${LATENCY_GAP_MS} ms (WorkerUtils.addJob, awaited); run() in this process at its defaults but concurrency ${CONCURRENCY}: no local queue, completions not batched, prepared statements on, pollInterval 2,000 ms, and new jobs announced by LISTEN/NOTIFY (add_job notifies jobs:insert, which wakes an idle worker at once); time from just before addJob to the start of the task; the adds and the runner together, from the first add to the last start: ${COST_METHOD}; ${perRun}; ${postgresDurability()}`;
      },
      postgres: { processes: 1, concurrency: CONCURRENCY, poolSize: POOL_SIZE },
      available,
      run: latencyAtLightLoad,
    },
  ];
}
