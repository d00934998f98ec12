/**
 * verq's job figures on PostgreSQL, beside graphile-worker and pg-boss on the same server:
 * enqueue one at a time and in bulk, a `JobWorker` at concurrency 8 in one process (batch sizes
 * 8 and 100, as the SQLite rows of 2d), and four worker processes on one database (as 2e does
 * with two on one SQLite file), each with what the drain cost per job (`postgres-cost.ts`);
 * and the enqueue→start latency at light load (3b, as 3 on SQLite). Every run has a schema of
 * its own (`createTestDatabase`), dropped afterwards; every job goes through the job machine
 * and the append-only event log.
 */
import { JobQueue, JobWorker, openStore } from "@verq/store";
import { createTestDatabase, type TestDatabase } from "@verq/testing";
import { CONCURRENCY, PG_GROUPS, POOL_SIZE, PROCESSES, postgresAvailable, postgresDurability } from "../postgres-settings.ts";
import { addCosts, COST_METHOD, costFigures, meterPostgres } from "../postgres-cost.ts";
import { perSecond, since, type BenchSize, type Figure, type Scenario } from "../scenario.ts";
import { jobId } from "../sqlite-files.ts";
import { enqueueAll, enqueueToStart, LATENCY_GAP_MS, workerProcesses } from "./verq-jobs.ts";

/** Runs `work` on a store in a fresh schema, then closes the store and drops the schema. */
async function withQueue<T>(work: (queue: JobQueue, database: TestDatabase) => Promise<T>): Promise<T> {
  const database = await createTestDatabase("postgres");
  try {
    const store = await openStore({ url: database.db, poolSize: POOL_SIZE });
    try {
      return await work(new JobQueue(store), database);
    } finally {
      await store.close();
    }
  } finally {
    await database.dispose();
  }
}

async function enqueueRate(size: BenchSize, perCall: number): Promise<Figure> {
  return withQueue(async (queue) => {
    const start = performance.now();
    if (perCall === 1) {
      for (let i = 0; i < size.jobs; i++) await queue.enqueue({ id: jobId("job", i), payload: { quantity: i } });
    } else {
      await enqueueAll(queue, size.jobs);
    }
    return perSecond(size.jobs, since(start));
  });
}

/** Pre-enqueued jobs (not timed), then one JobWorker until the queue is drained, with what the drain cost. */
async function workerRate(size: BenchSize, batchSize: number): Promise<Record<string, Figure>> {
  return withQueue(async (queue) => {
    await enqueueAll(queue, size.jobs);
    const worker = new JobWorker(queue, { owner: "w", concurrency: CONCURRENCY, batchSize, sender: () => true });
    const stopMeter = meterPostgres();
    const start = performance.now();
    const report = await worker.drain();
    const ms = since(start);
    const cost = stopMeter();
    if (report.ok !== size.jobs) throw new Error(`verq on PostgreSQL: the worker finished ${report.ok} of ${size.jobs}`);
    return { "jobs/s": perSecond(size.jobs, ms), ...costFigures(cost, size.jobs) };
  });
}

/** Pre-enqueued jobs, then `PROCESSES` worker processes on the schema, timed until the last has drained and exited. */
async function processesRate(size: BenchSize, batchSize: number): Promise<Record<string, Figure>> {
  return withQueue(async (queue, database) => {
    await enqueueAll(queue, size.jobs);
    const { wallMs, results } = await workerProcesses(database.db, PROCESSES, CONCURRENCY, batchSize, POOL_SIZE);
    const ok = results.reduce((sum, r) => sum + r.ok, 0);
    if (ok !== size.jobs) throw new Error(`verq on PostgreSQL: ${PROCESSES} processes finished ${ok} of ${size.jobs}`);
    const costs = results.map((r) => r.cost);
    if (costs.some((c) => c === undefined)) throw new Error("verq on PostgreSQL: a worker process did not report its cost");
    return { "jobs/s": perSecond(size.jobs, wallMs), ...costFigures(addCosts(costs.filter((c) => c !== undefined)), size.jobs) };
  });
}

export function verqPostgresScenarios(): Scenario[] {
  const available = postgresAvailable;
  const oneProcess = { processes: 1, concurrency: CONCURRENCY, poolSize: POOL_SIZE } as const;
  const schema = "a schema of its own per run, dropped afterwards";
  return [
    {
      group: PG_GROUPS.enqueueOne,
      system: "verq on PostgreSQL",
      get settings() {
        return `queue.enqueue per job (one transaction each); ${schema}; ${postgresDurability()}`;
      },
      postgres: { processes: 1, concurrency: "none (enqueue only)", poolSize: POOL_SIZE },
      available,
      run: async (size) => ({ "jobs/s": await enqueueRate(size, 1) }),
    },
    {
      group: PG_GROUPS.enqueueBulk,
      system: "verq on PostgreSQL",
      get settings() {
        return `queue.enqueueMany of 1,000 (one transaction); ${schema}; ${postgresDurability()}`;
      },
      postgres: { processes: 1, concurrency: "none (enqueue only)", poolSize: POOL_SIZE },
      available,
      run: async (size) => ({ "jobs/s": await enqueueRate(size, 1_000) }),
    },
    ...[8, 100].map((batchSize): Scenario => ({
      group: PG_GROUPS.oneProcess,
      system: `verq on PostgreSQL (batchSize ${batchSize})`,
      get settings() {
        return `JobWorker concurrency ${CONCURRENCY}, up to ${batchSize} jobs per transaction, pre-enqueued jobs, timed until drained; ${COST_METHOD}; ${schema}; ${postgresDurability()}`;
      },
      postgres: oneProcess,
      available,
      run: (size) => workerRate(size, batchSize),
    })),
    {
      group: PG_GROUPS.processes,
      system: "verq on PostgreSQL (batchSize 100)",
      get settings() {
        return `${PROCESSES} processes, each a JobWorker with concurrency ${CONCURRENCY} and batchSize 100, started together after their start-up, timed until the last has drained and exited; ${COST_METHOD}, summed over the processes; ${schema}; ${postgresDurability()}`;
      },
      postgres: { processes: PROCESSES, concurrency: CONCURRENCY, poolSize: POOL_SIZE },
      available,
      run: (size) => processesRate(size, 100),
    },
    {
      group: PG_GROUPS.latency,
      system: "verq on PostgreSQL",
      get settings() {
        return `one job every ${LATENCY_GAP_MS} ms (queue.enqueue, one transaction each); JobWorker concurrency ${CONCURRENCY} (default batchSize) in the enqueuing process, woken by the enqueue in this process (and by LISTEN/NOTIFY for other processes' enqueues); time from just before enqueue to the job's send; the enqueues and the worker together: ${COST_METHOD}; ${schema}; ${postgresDurability()}`;
      },
      postgres: oneProcess,
      available,
      run: (size) =>
        withQueue(async (queue) => {
          const count = size.quick ? 100 : 1_000;
          const stopMeter = meterPostgres();
          const latency = await enqueueToStart(queue, count);
          return { ...latency, ...costFigures(stopMeter(), count) };
        }),
    },
  ];
}
