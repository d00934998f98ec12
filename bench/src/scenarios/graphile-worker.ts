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
import { graphileRunnerOptions, openGraphilePool, quietLogger, TASK, type GraphilePool } from "../graphile-worker-options.ts";
import {
  CONCURRENCY,
  PG_GROUPS,
  POOL_SIZE,
  PROCESSES,
  postgresAvailable,
  postgresDurability,
  TEST_POSTGRES_URL,
} from "../postgres-settings.ts";
import { perSecond, since, type BenchSize, type Figure, type Scenario } from "../scenario.ts";

const BULK = 1_000;
/** The documented starting point for the local queue (concurrency + 1), verq's batch size, and the performance page's 500. */
const LOCAL_QUEUE_SIZES = [CONCURRENCY + 1, 100, 500] as const;
/** How often the run checks whether the last batched completions have landed. */
const COMPLETION_POLL_MS = 2;

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
async function remaining(bench: Bench): Promise<number> {
  const result = await bench.pool.query(`select count(*)::int as n from ${bench.schema}.jobs`);
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

async function drainInProcess(size: BenchSize, localQueueSize: number): Promise<Figure> {
  return withSchema(async (bench) => {
    await addInBulk(bench.utils, size.jobs);
    let handled = 0;
    let allHandled: () => void = () => {};
    const everyJobHandled = new Promise<void>((resolve) => {
      allHandled = resolve;
    });
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
      while ((await remaining(bench)) > 0) await sleep(COMPLETION_POLL_MS);
      return perSecond(size.jobs, since(start));
    } finally {
      await runner.stop();
    }
  });
}

async function drainInProcesses(size: BenchSize, localQueueSize: number): Promise<Figure> {
  return withSchema(async (bench) => {
    await addInBulk(bench.utils, size.jobs);
    const script = fileURLToPath(new URL("../graphile-worker-child.ts", import.meta.url));
    const { wallMs } = await drainWithChildren(
      script,
      () => [TEST_POSTGRES_URL, bench.schema, String(CONCURRENCY), String(localQueueSize), String(POOL_SIZE)],
      PROCESSES,
      size.jobs,
      () => remaining(bench),
    );
    return perSecond(size.jobs, wallMs);
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
        return `run() in this process, ${tuned(localQueueSize)}, no-op task, timed from run() until the jobs view is empty; ${perRun}; ${postgresDurability()}`;
      },
      postgres: { processes: 1, concurrency: CONCURRENCY, poolSize: POOL_SIZE },
      available,
      run: async (size) => ({ "jobs/s": await drainInProcess(size, localQueueSize) }),
    })),
    ...LOCAL_QUEUE_SIZES.map((localQueueSize): Scenario => ({
      group: PG_GROUPS.processes,
      system: `graphile-worker (localQueue ${localQueueSize})`,
      get settings() {
        return `${PROCESSES} processes, each run() with ${tuned(localQueueSize)}, started together after their start-up, no-op task, timed until the jobs view is empty; ${perRun}; ${postgresDurability()}`;
      },
      postgres: { processes: PROCESSES, concurrency: CONCURRENCY, poolSize: POOL_SIZE },
      available,
      run: async (size) => ({ "jobs/s": await drainInProcesses(size, localQueueSize) }),
    })),
  ];
}
