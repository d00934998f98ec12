/**
 * Group 9: the read-only dashboard on a large store. 9a: the median response time of each page
 * (`app.inject` into the dashboard's own Fastify app, no socket) on 100,000 jobs in every state,
 * on SQLite (the embedded default) and on PostgreSQL; 9b: the jobs listing's store read (`JobQueue.page`)
 * with a filter, on 1,000,000 jobs, first page and a page deep in the walk. The jobs are
 * enqueued through `enqueueMany` (1,000 a transaction) and moved on through `claimMany` and
 * `finishMany`, so every row has its events; a page never reads an OFFSET, so the deep page
 * costs what the first does.
 */
import { createDashboardServer } from "@verq/adapters/dashboard";
import { JobQueue, openStore, type JobsPageFilter, type VerqStore } from "@verq/store";
import { createTestDatabase } from "@verq/testing";
import { POOL_SIZE, postgresAvailable, postgresDurability } from "../postgres-settings.ts";
import { freshDb, jobId } from "../sqlite-files.ts";
import { lower, percentile, type BenchSize, type Figure, type Scenario } from "../scenario.ts";

const PAGES_GROUP = "9a. dashboard pages, median response, 100,000 jobs";
const QUERY_GROUP = "9b. dashboard jobs page read with a filter, 1,000,000 jobs";
/** Requests of each page per round, after one not counted. */
const REQUESTS = 15;

/**
 * `count` jobs in two queues and three kinds, then a tenth claimed and finished (four in five
 * `ok`, one in five `permanent`: dead) and a twentieth left leased.
 */
async function seed(store: VerqStore, count: number): Promise<void> {
  const queue = new JobQueue(store);
  for (let done = 0; done < count; done += 1_000) {
    const n = Math.min(1_000, count - done);
    await queue.enqueueMany(
      Array.from({ length: n }, (_, i) => {
        const k = done + i;
        return {
          id: jobId("job", k),
          payload: { n: k },
          queue: k % 3 === 0 ? "mail" : "default",
          ...(k % 4 === 0 ? { kind: "mail.send" } : k % 4 === 1 ? { kind: "report.build" } : {}),
        };
      }),
    );
  }
  const moved = Math.floor(count / 10);
  for (let done = 0; done < moved; done += 1_000) {
    const claimed = await queue.claimMany("bench", 1_000, { leaseMs: 3_600_000, queues: ["default", "mail"] });
    await queue.finishMany(
      claimed.map((job, i) => ({
        id: job.id,
        token: job.token,
        outcome: i % 5 === 4 ? ("permanent" as const) : ("ok" as const),
      })),
    );
  }
  for (let done = 0; done < count / 20; done += 1_000) await queue.claimMany("bench", 1_000, { leaseMs: 3_600_000 });
}

/** The median of `times` runs of `work` in ms, after one run not counted. */
async function medianMs(times: number, work: () => Promise<unknown>): Promise<number> {
  await work();
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    await work();
    samples.push(performance.now() - start);
  }
  return percentile(samples, 50);
}

const PAGES = [
  "/",
  "/jobs",
  "/jobs?state=pending&queue=mail",
  "/jobs?state=dead",
  "/jobs?kind=mail.send",
  "/queues",
  "/schedules",
  "/ledger",
];

async function pageTimes(size: BenchSize, store: VerqStore): Promise<Record<string, Figure>> {
  const app = createDashboardServer({ store });
  try {
    await seed(store, size.quick ? 5_000 : 100_000);
    await app.ready();
    const figures: Record<string, Figure> = {};
    for (const url of PAGES) {
      figures[`${url} ms`] = lower(
        await medianMs(size.quick ? 2 : REQUESTS, async () => {
          const response = await app.inject({ method: "GET", url });
          if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}`);
        }),
        "ms",
      );
    }
    return figures;
  } finally {
    await app.close();
    await store.close();
  }
}

/** {@link pageTimes} on a SQLite file of its own. */
const sqlitePageTimes = async (size: BenchSize) =>
  pageTimes(size, await openStore({ path: freshDb(size.dir, "verq-dashboard") }));

/** {@link pageTimes} on a PostgreSQL schema of its own, dropped afterwards. */
async function postgresPageTimes(size: BenchSize): Promise<Record<string, Figure>> {
  const database = await createTestDatabase("postgres");
  try {
    return await pageTimes(size, await openStore({ url: database.db, poolSize: POOL_SIZE }));
  } finally {
    await database.dispose();
  }
}

const QUERIES: readonly [string, JobsPageFilter, number][] = [
  ["pending of queue mail, page 1", { state: "pending", queue: "mail" }, 0],
  ["pending of queue mail, page 200", { state: "pending", queue: "mail" }, 199],
  ["dead, page 1", { state: "dead" }, 0],
  ["done of kind mail.send, page 1", { state: "done", kind: "mail.send" }, 0],
  ["kind mail.send (no state: by id), page 1", { kind: "mail.send" }, 0],
  ["id prefix job-0001, page 1", { idPrefix: "job-0001" }, 0],
];

async function queryTimes(size: BenchSize): Promise<Record<string, Figure>> {
  const store = await openStore({ path: freshDb(size.dir, "verq-dashboard-1m") });
  try {
    await seed(store, size.quick ? 10_000 : 1_000_000);
    const queue = new JobQueue(store);
    const figures: Record<string, Figure> = {};
    for (const [name, filter, skip] of QUERIES) {
      let after: string | null = null;
      for (let i = 0; i < (size.quick ? Math.min(skip, 2) : skip); i++) after = (await queue.page(filter, after, 50)).next;
      figures[`${name} ms`] = lower(await medianMs(size.quick ? 2 : REQUESTS, () => queue.page(filter, after, 50)), "ms");
    }
    return figures;
  } finally {
    await store.close();
  }
}

export function dashboardScenarios(): Scenario[] {
  return [
    {
      group: PAGES_GROUP,
      system: "verq",
      settings: `median of ${REQUESTS} app.inject requests per page after one not counted; jobs enqueued in batches of 1,000, a tenth claimed and finished`,
      rounds: 1,
      run: sqlitePageTimes,
    },
    {
      group: PAGES_GROUP,
      system: "verq on PostgreSQL",
      get settings() {
        return `as verq's row, on a schema of its own (dropped afterwards), a pool of ${POOL_SIZE}; ${postgresDurability()}`;
      },
      rounds: 1,
      available: postgresAvailable,
      run: postgresPageTimes,
    },
    {
      group: QUERY_GROUP,
      system: "verq",
      settings: `median of ${REQUESTS} JobQueue.page reads of 50 after one not counted; SQLite, WAL`,
      rounds: 1,
      run: queryTimes,
    },
  ];
}
