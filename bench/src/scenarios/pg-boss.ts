/**
 * pg-boss 10 on PostgreSQL, the baseline measured beside verq in the same run.
 *
 * - 1a: `size.jobs` `boss.send` calls, each awaited before the next.
 * - 1b: `size.jobs` jobs through `boss.insert`, 1,000 per call.
 * - 2b: `size.jobs` no-op jobs inserted beforehand (not timed); timed from `boss.work` with
 *   batchSize 8 until no job of the queue is short of `completed`.
 * - 3: one job sent every 5 ms while that worker runs; per job, the time from just before
 *   `send` to the start of the handler; p50 and p99.
 *
 * pg-boss 10 has no teamSize: one `work` loop fetches up to `batchSize` jobs, hands them to
 * the handler together, fires `complete` without waiting for it, and then sleeps for
 * pollingIntervalSeconds (default 2 s) before fetching again. At the defaults that caps a
 * worker at 8 jobs / 2 s = 4 jobs/s whatever the database can do, so the handler here calls
 * `boss.notifyWorker` (pg-boss's documented way to skip the wait) after each non-empty batch:
 * the worker fetches again at once while jobs remain and waits the default 2 s only after an
 * empty fetch. The `settings` strings say so.
 *
 * Each run starts pg-boss on a bench-only schema, dropped before and after, with a fresh queue,
 * and stops pg-boss gracefully, closing its pool.
 */
import { createRequire } from "node:module";
import { setTimeout as sleep } from "node:timers/promises";
import PgBoss from "pg-boss";
import { lower, perSecond, percentile, since } from "../scenario.ts";
import type { BenchSize, Figure, Scenario } from "../scenario.ts";

const CONNECTION_STRING = "postgres://postgres@127.0.0.1:5432/test";
const SCHEMA = "verq_bench_pgboss";
const BULK = 1_000;
const BATCH_SIZE = 8;
const LATENCY_GAP_MS = 5;
/** How often the run checks whether the last `complete` calls have landed. */
const COMPLETION_POLL_MS = 2;

interface JobData {
  readonly i: number;
}

/** The little of `pg` (pg-boss's own driver) used here to check the server and drop the schema. */
interface PgClient {
  connect(): Promise<void>;
  query(sql: string): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
  on(event: "error", listener: (err: Error) => void): unknown;
}
interface PgModule {
  Client: new (config: { connectionString: string; connectionTimeoutMillis?: number; query_timeout?: number }) => PgClient;
}

/** `pg` as pg-boss resolves it: the bench does not depend on it directly. */
const loadPg = (): PgModule => createRequire(createRequire(import.meta.url).resolve("pg-boss"))("pg") as PgModule;

async function withAdminClient<T>(body: (client: PgClient) => Promise<T>, timeoutMs = 5_000): Promise<T> {
  const client = new (loadPg().Client)({
    connectionString: CONNECTION_STRING,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  client.on("error", () => {}); // a dropped connection surfaces as a failed query
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

const dropSchema = (): Promise<unknown> => withAdminClient((client) => client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`));

/** What the server says about durability, read in `available()`; shown in every `settings`. */
let durability = "PostgreSQL durability settings not read (available() not called)";

let queueSeq = 0;
const freshQueueName = (what: string): string => `verq-bench-${what}-${process.pid}-${Date.now().toString(36)}-${queueSeq++}`;

/**
 * Runs `body` with a started pg-boss on a freshly created bench schema and a fresh queue, then
 * stops pg-boss gracefully (closing its pool) and drops the schema.
 */
async function withBoss<T>(what: string, body: (boss: PgBoss, name: string) => Promise<T>): Promise<T> {
  await dropSchema();
  const boss = new PgBoss({ connectionString: CONNECTION_STRING, schema: SCHEMA });
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

/**
 * Starts one worker, batchSize 8, that calls `handler` for each job at the start of its batch
 * and asks for the next fetch at once after every non-empty batch.
 */
async function startWorker(boss: PgBoss, name: string, handler: (data: JobData) => void): Promise<void> {
  const worker: { id?: string } = {};
  worker.id = await boss.work<JobData>(name, { batchSize: BATCH_SIZE }, (jobs) => {
    for (const job of jobs) handler(job.data);
    if (worker.id !== undefined) boss.notifyWorker(worker.id);
    return Promise.resolve();
  });
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

async function available(): Promise<true | string> {
  try {
    const rows = await withAdminClient(
      async (client) =>
        (
          await client.query(
            "SELECT current_setting('server_version') AS version, current_setting('synchronous_commit') AS sync, current_setting('fsync') AS fsync",
          )
        ).rows,
      1_000,
    );
    const row = rows[0] ?? {};
    const version = typeof row.version === "string" ? row.version.split(" ")[0] : "?";
    durability = `PostgreSQL ${version} as the server runs: synchronous_commit=${String(row.sync)}, fsync=${String(row.fsync)}`;
    return true;
  } catch (err) {
    return `PostgreSQL at ${CONNECTION_STRING}: ${err instanceof Error ? err.message : String(err)}`;
  }
}

const system = "pg-boss";
const WORKER = `one boss.work loop, batchSize ${BATCH_SIZE} (a handler call gets up to ${BATCH_SIZE} jobs; pg-boss 10 has no teamSize), default pollingIntervalSeconds 2, the handler calling boss.notifyWorker after each non-empty batch so the next fetch is immediate while jobs remain (the 2 s wait only follows an empty fetch; without it a worker takes 8 jobs per 2 s)`;

export function pgBossScenarios(): Scenario[] {
  return [
    {
      group: "1a. enqueue, one at a time",
      system,
      get settings() {
        return `boss.send awaited one by one, default queue policy and job options; ${durability}`;
      },
      available,
      run: enqueueOneByOne,
    },
    {
      group: "1b. enqueue, in bulk",
      system,
      get settings() {
        return `boss.insert, ${BULK.toLocaleString("en")} jobs per call; ${durability}`;
      },
      available,
      run: enqueueInBulk,
    },
    {
      group: "2d. processing, concurrency 8 in one process",
      system,
      get settings() {
        return `${WORKER}, no-op handler, timed until no job is short of completed (pg-boss completes in the background); ${durability}`;
      },
      available,
      run: drainConcurrently,
    },
    {
      group: "3. enqueue→start latency at light load",
      system,
      get settings() {
        return `one job every ${LATENCY_GAP_MS} ms, ${WORKER}; ${durability}`;
      },
      available,
      run: latencyAtLightLoad,
    },
  ];
}
