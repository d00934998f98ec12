/**
 * verq's job figures on PostgreSQL, beside graphile-worker and pg-boss on the same server:
 * enqueue one at a time and in bulk, a `JobWorker` at concurrency 8 in one process (batch sizes
 * 8 and 100, as the SQLite rows of 2d, and 500, graphile-worker's local queue here; two rounds
 * under way at once, the default on PostgreSQL), and four worker processes on one database (as
 * 2e does with two on one SQLite file), each with what the drain cost per job (`postgres-cost.ts`);
 * and the enqueue→start latency at light load (3b, as 3 on SQLite). Every run has a schema of
 * its own (`createTestDatabase`), dropped afterwards; every job goes through the job machine
 * and the append-only event log.
 */
import { JobQueue, JobWorker, openStore } from "@verq/store";
import { createTestDatabase, type TestDatabase } from "@verq/testing";
import { drainInRounds, recordAndReplay } from "../../schema-cost/postgres-replay.ts";
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

/** The system name of the replay's row: a baseline (it runs none of verq's code), verq's limit on one connection. */
const POSTGRES_REPLAY = "verq's statements replayed on PostgreSQL (one connection)";

/**
 * verq's statements for `work` recorded on one schema and replayed on a copy taken before it
 * (`schema-cost/postgres-replay.ts`), timed and metered; the copy must end with every one of
 * the run's jobs in `state`.
 */
async function replayRate(
  size: BenchSize,
  prepare: (queue: JobQueue) => Promise<void>,
  work: (queue: JobQueue) => Promise<void>,
  state: "pending" | "done",
): Promise<Record<string, Figure>> {
  const results = await recordAndReplay(POOL_SIZE, prepare, work, [{ name: "all" }]);
  const { ms, cost, states } = results.get("all")!;
  if (states[state] !== size.jobs) throw new Error(`the replay left ${JSON.stringify(states)}, not ${size.jobs} ${state}`);
  return { "jobs/s": perSecond(size.jobs, ms), ...costFigures(cost, size.jobs) };
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

/**
 * A row of verq's statements replayed (see {@link replayRate}) in `group`: `what` says which
 * statements were recorded, `work` makes them.
 */
function replayScenario(
  group: string,
  what: string,
  prepare: (queue: JobQueue, size: BenchSize) => Promise<void>,
  work: (queue: JobQueue, size: BenchSize) => Promise<void>,
  state: "pending" | "done",
): Scenario {
  return {
    group,
    system: POSTGRES_REPLAY,
    get settings() {
      return `the statements of ${what}, recorded with their parameters, then replayed one after another by a bare pg.Client on one connection, prepared under the same names, on a copy of the schema taken before them: the same rows written with no Kysely, no machine and none of verq's code; timed and metered over the replay only; ${COST_METHOD.replace("the worker process(es)", "the replaying process")}; a schema of its own per run, dropped afterwards; ${postgresDurability()}`;
    },
    postgres: { processes: 1, concurrency: "none (statements replayed)", poolSize: 1 },
    available: postgresAvailable,
    run: (size) =>
      replayRate(
        size,
        (queue) => prepare(queue, size),
        (queue) => work(queue, size),
        state,
      ),
  };
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
        return `queue.enqueue per job (one statement each, outside any transaction); ${schema}; ${postgresDurability()}`;
      },
      postgres: { processes: 1, concurrency: "none (enqueue only)", poolSize: POOL_SIZE },
      available,
      run: async (size) => ({ "jobs/s": await enqueueRate(size, 1) }),
    },
    replayScenario(
      PG_GROUPS.enqueueOne,
      "queue.enqueue per job (one statement each, outside any transaction)",
      async () => {},
      async (queue, size) => {
        for (let i = 0; i < size.jobs; i++) await queue.enqueue({ id: jobId("job", i), payload: { quantity: i } });
      },
      "pending",
    ),
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
    replayScenario(
      PG_GROUPS.enqueueBulk,
      "queue.enqueueMany of 1,000 (one transaction each)",
      async () => {},
      (queue, size) => enqueueAll(queue, size.jobs),
      "pending",
    ),
    ...[8, 100, 500].map((batchSize): Scenario => ({
      group: PG_GROUPS.oneProcess,
      system: `verq on PostgreSQL (batchSize ${batchSize})`,
      get settings() {
        return `JobWorker concurrency ${CONCURRENCY}, up to ${batchSize} jobs per transaction, two transactions under way at once (the default rounds), pre-enqueued jobs, timed until drained; ${COST_METHOD}; ${schema}; ${postgresDurability()}`;
      },
      postgres: oneProcess,
      available,
      run: (size) => workerRate(size, batchSize),
    })),
    // Pre-enqueued jobs (not recorded), then the drain.
    replayScenario(
      PG_GROUPS.oneProcess,
      `a JobWorker's drain of pre-enqueued jobs (concurrency ${CONCURRENCY}, batchSize 500, one round at a time)`,
      (queue, size) => enqueueAll(queue, size.jobs),
      (queue, size) => drainInRounds(queue, size.jobs, 500, CONCURRENCY),
      "done",
    ),
    {
      group: PG_GROUPS.processes,
      system: "verq on PostgreSQL (batchSize 500)",
      get settings() {
        return `${PROCESSES} processes, each a JobWorker with concurrency ${CONCURRENCY}, batchSize 500 and the default two rounds, started together after their start-up, timed until the last has drained and exited; ${COST_METHOD}, summed over the processes; ${schema}; ${postgresDurability()}`;
      },
      postgres: { processes: PROCESSES, concurrency: CONCURRENCY, poolSize: POOL_SIZE },
      available,
      run: (size) => processesRate(size, 500),
    },
    {
      group: PG_GROUPS.latency,
      system: "verq on PostgreSQL",
      get settings() {
        return `one job every ${LATENCY_GAP_MS} ms (queue.enqueue, one statement each); JobWorker concurrency ${CONCURRENCY} (default batchSize) in the enqueuing process, woken by the enqueue in this process (and by LISTEN/NOTIFY for other processes' enqueues); time from just before enqueue to the job's send; the enqueues and the worker together: ${COST_METHOD}; ${schema}; ${postgresDurability()}`;
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
