/**
 * verq's job figures on its embedded default (SQLite, WAL, synchronous=NORMAL): enqueue, full
 * lifecycles, workers with and without group commit, two processes on one file, latency from
 * enqueue to start, peak memory, claim latency as the log grows, and bytes per lifecycle.
 * Every job goes through the job machine and the append-only event log.
 */
import { fileURLToPath } from "node:url";
import { JobQueue, JobWorker, openStore, type VerqStore } from "@verq/store";
import type { PostgresCost } from "../postgres-cost.ts";
import { startReadyChildren } from "../ready-children.ts";
import { bytesOnDisk, freshDb, jobId } from "../sqlite-files.ts";
import { lower, percentile, perSecond, since, type BenchSize, type Figure, type Scenario } from "../scenario.ts";

const DURABILITY = "WAL, synchronous=NORMAL (default)";

async function withQueue<T>(
  size: BenchSize,
  name: string,
  work: (queue: JobQueue, store: VerqStore, file: string) => Promise<T>,
): Promise<T> {
  const file = freshDb(size.dir, name);
  const store = await openStore({ path: file });
  try {
    return await work(new JobQueue(store), store, file);
  } finally {
    await store.close();
  }
}

/** Enqueues `count` jobs, 1,000 per `enqueueMany` (one transaction each). */
export async function enqueueAll(queue: JobQueue, count: number, prefix = "job"): Promise<void> {
  for (let done = 0; done < count; done += 1_000) {
    const n = Math.min(1_000, count - done);
    await queue.enqueueMany(
      Array.from({ length: n }, (_, i) => ({ id: jobId(prefix, done + i), payload: { quantity: done + i } })),
    );
  }
}

async function enqueueRate(size: BenchSize, perCall: number): Promise<Figure> {
  return withQueue(size, "verq-enqueue", async (queue) => {
    const start = performance.now();
    if (perCall === 1) {
      for (let i = 0; i < size.jobs; i++) await queue.enqueue({ id: jobId("job", i), payload: { quantity: i } });
    } else {
      await enqueueAll(queue, size.jobs);
    }
    return perSecond(size.jobs, since(start));
  });
}

/** enqueue → claim → finish(ok), each its own transaction, one job after another. */
async function perCommitLifecycle(size: BenchSize): Promise<Figure> {
  return withQueue(size, "verq-lifecycle", async (queue) => {
    const start = performance.now();
    for (let i = 0; i < size.jobs; i++) {
      await queue.enqueue({ id: jobId("job", i), payload: { quantity: i } });
      const job = await queue.claim("w");
      if (job === null || !(await queue.finish(job.id, job.token, "ok"))) throw new Error("verq: lifecycle broke");
    }
    return perSecond(size.jobs, since(start));
  });
}

/** enqueueMany, claimMany, finishMany of 100 jobs: three transactions per 100 jobs. */
async function batchedLifecycle(size: BenchSize): Promise<{ rate: Figure; bytes: Figure }> {
  return withQueue(size, "verq-batched", async (queue, store, file) => {
    const start = performance.now();
    for (let done = 0; done < size.jobs; done += 100) {
      const n = Math.min(100, size.jobs - done);
      await queue.enqueueMany(
        Array.from({ length: n }, (_, i) => ({ id: jobId("job", done + i), payload: { quantity: done + i } })),
      );
      const jobs = await queue.claimMany("w", n);
      const accepted = await queue.finishMany(jobs.map((j) => ({ id: j.id, token: j.token, outcome: "ok" as const })));
      if (jobs.length !== n || accepted.includes(false)) throw new Error("verq: batched lifecycle broke");
    }
    const rate = perSecond(size.jobs, since(start));
    await store.checkpoint();
    return { rate, bytes: lower(bytesOnDisk(file) / size.jobs, "bytes/job") };
  });
}

/** Pre-enqueued jobs (not timed), then one JobWorker until the queue is drained. */
async function workerRate(size: BenchSize, concurrency: number, batchSize: number): Promise<Figure> {
  return withQueue(size, "verq-worker", async (queue) => {
    await enqueueAll(queue, size.jobs);
    const start = performance.now();
    const report = await new JobWorker(queue, { owner: "w", concurrency, batchSize, sender: () => true }).drain();
    const ms = since(start);
    if (report.ok !== size.jobs) throw new Error(`verq: worker finished ${report.ok} of ${size.jobs}`);
    return perSecond(size.jobs, ms);
  });
}

/** What one worker process reports (on PostgreSQL, with what its drain cost). */
export interface ChildResult {
  readonly ok: number;
  readonly ms: number;
  readonly peakRssBytes: number;
  readonly cost?: PostgresCost;
}

/**
 * Starts `count` worker processes on one database (a SQLite file, or a PostgreSQL URL with a
 * pool of `poolSize` in each), lets them go together, and waits for their reports.
 */
export async function workerProcesses(
  db: string,
  count: number,
  concurrency: number,
  batchSize: number,
  poolSize = 10,
): Promise<{ wallMs: number; results: ChildResult[] }> {
  const script = fileURLToPath(new URL("../worker-child.ts", import.meta.url));
  const children = await startReadyChildren(
    script,
    (i) => [db, `p${i + 1}`, String(concurrency), String(batchSize), String(poolSize)],
    count,
  );
  const start = performance.now();
  for (const child of children) child.go();
  const outputs = await Promise.all(children.map((c) => c.exited));
  const wallMs = since(start);
  return { wallMs, results: outputs.map((out) => JSON.parse(out.trim().split("\n").pop() ?? "") as ChildResult) };
}

async function twoProcesses(size: BenchSize): Promise<Figure> {
  const db = freshDb(size.dir, "verq-two");
  const store = await openStore({ path: db });
  await enqueueAll(new JobQueue(store), size.jobs);
  await store.close();
  const { wallMs, results } = await workerProcesses(db, 2, 8, 100);
  const ok = results.reduce((sum, r) => sum + r.ok, 0);
  if (ok !== size.jobs) throw new Error(`verq: two processes finished ${ok} of ${size.jobs}`);
  return perSecond(size.jobs, wallMs);
}

async function peakMemory(size: BenchSize): Promise<Record<string, Figure>> {
  const jobs = size.quick ? size.jobs : 100_000;
  const db = freshDb(size.dir, "verq-memory");
  const store = await openStore({ path: db });
  await enqueueAll(new JobQueue(store), jobs);
  await store.close();
  const { results } = await workerProcesses(db, 1, 8, 100);
  const [result] = results;
  if (result?.ok !== jobs) throw new Error(`verq: the memory run finished ${result?.ok} of ${jobs}`);
  return { [`peak RSS MB (${jobs.toLocaleString("en")} jobs)`]: lower(result.peakRssBytes / 1e6, "MB") };
}

/** The gap between two enqueues of the latency figures (3, 3b). */
export const LATENCY_GAP_MS = 5;

/**
 * Enqueue→start latency at light load on `queue`: one job every `LATENCY_GAP_MS` ms with a
 * `JobWorker` (concurrency 8) running in the same process, woken by the enqueue; per job, the
 * time from just before `enqueue` to its send; p50 and p99 of `count` jobs.
 */
export async function enqueueToStart(queue: JobQueue, count: number): Promise<Record<string, Figure>> {
  const enqueuedAt = new Map<string, number>();
  const samples: number[] = [];
  const worker = new JobWorker(queue, {
    owner: "w",
    concurrency: 8,
    sender: (job) => {
      const at = enqueuedAt.get(job.id);
      if (at !== undefined) samples.push(performance.now() - at);
      return true;
    },
  });
  worker.start();
  for (let i = 0; i < count; i++) {
    const id = jobId("lat", i);
    enqueuedAt.set(id, performance.now());
    await queue.enqueue({ id, payload: { quantity: i } });
    await new Promise((resolve) => setTimeout(resolve, LATENCY_GAP_MS));
  }
  while (samples.length < count) await new Promise((resolve) => setTimeout(resolve, LATENCY_GAP_MS));
  await worker.stop();
  return { "p50 ms": lower(percentile(samples, 50), "ms"), "p99 ms": lower(percentile(samples, 99), "ms") };
}

/**
 * Claim latency as the log grows: finished lifecycles are added until the log holds each
 * target number of events; at each, the median of 200 single claims (each its own transaction)
 * of pending jobs. Flat because claims read `jobs_pending_due`, a partial index on
 * (available_at, enqueue_position) WHERE state = 'pending': done jobs and old events are not in it.
 */
async function claimLatencyByLogSize(size: BenchSize): Promise<Record<string, Figure>> {
  const targets = size.quick ? [1_000, 3_000, 10_000] : [10_000, 100_000, 1_000_000];
  return withQueue(size, "verq-log", async (queue, store) => {
    const figures: Record<string, Figure> = {};
    let lifecycles = 0;
    for (const target of targets) {
      // Each filler lifecycle writes three events (enqueued, claimed, completed).
      while ((await store.countEvents()) < target) {
        const n = Math.min(1_000, Math.ceil((target - (await store.countEvents())) / 3));
        await queue.enqueueMany(
          Array.from({ length: n }, (_, i) => ({ id: jobId("fill", lifecycles + i), payload: { quantity: i } })),
        );
        lifecycles += n;
        for (;;) {
          const jobs = await queue.claimMany("filler", 1_000);
          if (jobs.length === 0) break;
          await queue.finishMany(jobs.map((j) => ({ id: j.id, token: j.token, outcome: "ok" as const })));
        }
      }
      await queue.enqueueMany(Array.from({ length: 200 }, (_, i) => ({ id: jobId(`probe${target}`, i), payload: null })));
      const samples: number[] = [];
      for (let i = 0; i < 200; i++) {
        const start = performance.now();
        const job = await queue.claim("probe");
        samples.push(since(start));
        if (job === null) throw new Error("verq: no probe job to claim");
        await queue.finish(job.id, job.token, "ok");
      }
      figures[`claim p50 ms at ${target.toLocaleString("en")} events`] = lower(percentile(samples, 50), "ms");
    }
    return figures;
  });
}

export function verqJobScenarios(): Scenario[] {
  const system = "verq";
  return [
    {
      group: "1a. enqueue, one at a time",
      system,
      settings: `queue.enqueue per job (one transaction each); ${DURABILITY}`,
      run: async (size) => ({ "jobs/s": await enqueueRate(size, 1) }),
    },
    {
      group: "1b. enqueue, in bulk",
      system,
      settings: `queue.enqueueMany of 1,000 (one transaction); ${DURABILITY}`,
      run: async (size) => ({ "jobs/s": await enqueueRate(size, 1_000) }),
    },
    {
      group: "2a. lifecycle, each step its own commit",
      system,
      settings: `enqueue, claim, finish: three transactions per job; ${DURABILITY}`,
      run: async (size) => ({ "jobs/s": await perCommitLifecycle(size) }),
    },
    {
      group: "2b. lifecycle, 100 jobs per transaction",
      system,
      settings: `enqueueMany, claimMany, finishMany of 100: three transactions per 100 jobs; ${DURABILITY}`,
      run: async (size) => ({ "jobs/s": (await batchedLifecycle(size)).rate }),
    },
    {
      group: "2c. processing, one worker",
      system: "verq (batchSize 1)",
      settings: `JobWorker concurrency 1, one job per claim and per finish transaction; ${DURABILITY}`,
      run: async (size) => ({ "jobs/s": await workerRate(size, 1, 1) }),
    },
    {
      group: "2c. processing, one worker",
      system: "verq (batchSize 100)",
      settings: `JobWorker concurrency 1, up to 100 jobs per claim and per finish transaction; ${DURABILITY}`,
      run: async (size) => ({ "jobs/s": await workerRate(size, 1, 100) }),
    },
    {
      group: "2d. processing, concurrency 8 in one process",
      system: "verq (batchSize 8)",
      settings: `JobWorker concurrency 8, up to 8 jobs per transaction; ${DURABILITY}`,
      run: async (size) => ({ "jobs/s": await workerRate(size, 8, 8) }),
    },
    {
      group: "2d. processing, concurrency 8 in one process",
      system: "verq (batchSize 100)",
      settings: `JobWorker concurrency 8, up to 100 jobs per transaction; ${DURABILITY}`,
      run: async (size) => ({ "jobs/s": await workerRate(size, 8, 100) }),
    },
    {
      group: "2e. processing, 2 processes on one SQLite file",
      system,
      settings: `two processes, each a JobWorker with concurrency 8 and batchSize 100; ${DURABILITY}`,
      run: async (size) => ({ "jobs/s": await twoProcesses(size) }),
    },
    {
      group: "3. enqueue→start latency at light load",
      system,
      settings: `one job every ${LATENCY_GAP_MS} ms; JobWorker concurrency 8 in the enqueuing process (woken by the enqueue)`,
      run: (size) => withQueue(size, "verq-latency", (queue) => enqueueToStart(queue, size.quick ? 100 : 1_000)),
    },
    {
      group: "6a. worker peak memory",
      system,
      rounds: 1,
      settings: "one worker process (concurrency 8, batchSize 100) draining pre-enqueued jobs; peak RSS",
      run: (size) => peakMemory(size),
    },
    {
      group: "6b. claim latency as the log grows",
      system,
      rounds: 1,
      settings: "one claim per transaction with finished jobs filling the log; median of 200",
      run: (size) => claimLatencyByLogSize(size),
    },
    {
      group: "7. bytes on disk per job lifecycle",
      system,
      settings: "after the batched lifecycle and a WAL checkpoint; three events per job kept for ever, plus the jobs row",
      run: async (size) => ({ "bytes/job": (await batchedLifecycle(size)).bytes }),
    },
  ];
}
