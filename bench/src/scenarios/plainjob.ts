/**
 * Baseline: plainjob 0.0.14, a SQLite job queue on better-sqlite3, at its defaults (it sets
 * WAL and synchronous=NORMAL itself). One worker is plainjob's unit of concurrency: it takes one
 * job at a time, marking it processing and then done, each in its own statement.
 */
import Database from "better-sqlite3";
import { better, defineQueue, defineWorker, type Queue } from "plainjob";
import { bytesOnDisk, freshDb } from "../sqlite-files.ts";
import { lower, perSecond, since, type BenchSize, type Scenario } from "../scenario.ts";

const SETTINGS = "defaults (WAL, synchronous=NORMAL, set by plainjob)";
const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };

function openQueue(dir: string): { queue: Queue; file: string } {
  const file = freshDb(dir, "plainjob");
  const queue = defineQueue({ connection: better(new Database(file)), logger: quiet, maintenanceInterval: 3_600_000 });
  return { queue, file };
}

function enqueue(size: BenchSize, perCall: number): number {
  const { queue } = openQueue(size.dir);
  const start = performance.now();
  for (let done = 0; done < size.jobs; done += perCall) {
    if (perCall === 1) queue.add("bench", { quantity: done });
    else
      queue.addMany(
        "bench",
        Array.from({ length: Math.min(perCall, size.jobs - done) }, (_, i) => ({ quantity: done + i })),
      );
  }
  const ms = since(start);
  queue.close();
  return ms;
}

/** Pre-enqueues `size.jobs` (not timed), then times one worker until all are done. */
async function process(size: BenchSize): Promise<{ ms: number; bytes: number }> {
  const { queue, file } = openQueue(size.dir);
  for (let done = 0; done < size.jobs; done += 1_000) {
    queue.addMany(
      "bench",
      Array.from({ length: Math.min(1_000, size.jobs - done) }, (_, i) => ({ quantity: done + i })),
    );
  }
  let completed = 0;
  let finished: () => void = () => undefined;
  const allDone = new Promise<void>((resolve) => (finished = resolve));
  const worker = defineWorker("bench", () => Promise.resolve(), {
    queue,
    logger: quiet,
    onCompleted: () => {
      if (++completed === size.jobs) finished();
    },
  });
  const start = performance.now();
  const running = worker.start();
  await allDone;
  const ms = since(start);
  await worker.stop();
  await running;
  const bytes = bytesOnDisk(file) / size.jobs;
  queue.close();
  return { ms, bytes };
}

export function plainjobScenarios(): Scenario[] {
  const system = "plainjob";
  return [
    {
      group: "1a. enqueue, one at a time",
      system,
      settings: `queue.add per job; ${SETTINGS}`,
      run: (size) => Promise.resolve({ "jobs/s": perSecond(size.jobs, enqueue(size, 1)) }),
    },
    {
      group: "1b. enqueue, in bulk",
      system,
      settings: `queue.addMany of 1,000; ${SETTINGS}`,
      run: (size) => Promise.resolve({ "jobs/s": perSecond(size.jobs, enqueue(size, 1_000)) }),
    },
    {
      group: "2c. processing, one worker",
      system,
      settings: `one worker, no-op handler, pre-enqueued jobs; ${SETTINGS}`,
      run: async (size) => ({ "jobs/s": perSecond(size.jobs, (await process(size)).ms) }),
    },
    {
      group: "7. bytes on disk per job lifecycle",
      system,
      settings: "after processing; done rows kept (no cleanup ran), WAL not checkpointed",
      run: async (size) => ({ "bytes/job": lower((await process(size)).bytes, "bytes/job") }),
    },
  ];
}
