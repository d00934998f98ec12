/**
 * BullMQ on Redis, the baseline measured beside verq in the same run.
 *
 * - 1a: `size.jobs` `queue.add` calls, each awaited before the next.
 * - 1b: `size.jobs` jobs through `queue.addBulk`, 1,000 per call.
 * - 2b: `size.jobs` no-op jobs enqueued beforehand (not timed); timed from starting one
 *   `Worker` with concurrency 8 until its `completed` event has fired for every job.
 * - 3: one job added every 5 ms while a worker (concurrency 8) waits; per job, the time from
 *   just before `add` to the start of the handler; p50 and p99.
 *
 * Every run uses a queue of its own, obliterated afterwards, and closes every connection it
 * opened. BullMQ 6 talks to Redis through its optional peer `ioredis`; `available()` reports it
 * when that package cannot be loaded, as it does when Redis itself is unreachable.
 */
import { createRequire } from "node:module";
import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { Queue, Worker } from "bullmq";
import { lower, perSecond, percentile, since } from "../scenario.ts";
import type { BenchSize, Figure, Scenario } from "../scenario.ts";

const REDIS_HOST = "127.0.0.1";
const REDIS_PORT = 6379;
const connection = { host: REDIS_HOST, port: REDIS_PORT };
const BULK = 1_000;
const CONCURRENCY = 8;
const LATENCY_GAP_MS = 5;

interface JobData {
  readonly i: number;
}

/** What the server says about its persistence, read in `available()`; shown in every `settings`. */
let persistence = "Redis persistence not read (available() not called)";

let queueSeq = 0;
const freshQueueName = (what: string): string =>
  `verq-bench-bullmq-${what}-${process.pid}-${Date.now().toString(36)}-${queueSeq++}`;

/** Runs `body` with a fresh queue, then obliterates the queue and closes its connection. */
async function withQueue<T>(what: string, body: (queue: Queue<JobData>, name: string) => Promise<T>): Promise<T> {
  const name = freshQueueName(what);
  const queue = new Queue<JobData>(name, { connection });
  let failure: Error | undefined;
  queue.on("error", (err) => {
    failure ??= err;
  });
  try {
    await queue.waitUntilReady();
    const result = await body(queue, name);
    if (failure !== undefined) throw failure;
    return result;
  } finally {
    try {
      await queue.obliterate({ force: true });
    } finally {
      await queue.close();
    }
  }
}

async function addInBulk(queue: Queue<JobData>, count: number): Promise<void> {
  for (let from = 0; from < count; from += BULK) {
    const batch = [];
    for (let i = from; i < Math.min(count, from + BULK); i++) batch.push({ name: "noop", data: { i } });
    await queue.addBulk(batch);
  }
}

interface ReadyWorker {
  readonly worker: Worker<JobData>;
  /** Starts taking jobs. */
  readonly start: () => void;
  /** Closes the worker, waits for its loop to end and throws the first error it reported. */
  readonly close: () => Promise<void>;
}

/** A worker that is connected but not yet taking jobs; `handler` runs at the start of each job. */
async function readyWorker(name: string, handler: (data: JobData) => void): Promise<ReadyWorker> {
  const worker = new Worker<JobData>(
    name,
    (job) => {
      handler(job.data);
      return Promise.resolve();
    },
    { connection, concurrency: CONCURRENCY, autorun: false },
  );
  let failure: Error | undefined;
  worker.on("error", (err) => {
    failure ??= err;
  });
  worker.on("failed", (_job, err) => {
    failure ??= err;
  });
  let running: Promise<void> | undefined;
  try {
    await worker.waitUntilReady();
  } catch (err) {
    await worker.close();
    throw err;
  }
  return {
    worker,
    start: () => {
      running = worker.run();
    },
    close: async () => {
      await worker.close();
      await running;
      if (failure !== undefined) throw failure;
    },
  };
}

async function enqueueOneByOne(size: BenchSize): Promise<Record<string, Figure>> {
  return withQueue("add", async (queue) => {
    const start = performance.now();
    for (let i = 0; i < size.jobs; i++) await queue.add("noop", { i });
    return { "jobs/s": perSecond(size.jobs, since(start)) };
  });
}

async function enqueueInBulk(size: BenchSize): Promise<Record<string, Figure>> {
  return withQueue("bulk", async (queue) => {
    const start = performance.now();
    await addInBulk(queue, size.jobs);
    return { "jobs/s": perSecond(size.jobs, since(start)) };
  });
}

async function drainConcurrently(size: BenchSize): Promise<Record<string, Figure>> {
  return withQueue("drain", async (queue, name) => {
    await addInBulk(queue, size.jobs);
    const { worker, start: startWorker, close } = await readyWorker(name, () => {});
    try {
      let completed = 0;
      const allCompleted = new Promise<void>((resolve) => {
        worker.on("completed", () => {
          if (++completed === size.jobs) resolve();
        });
      });
      const start = performance.now();
      startWorker();
      await allCompleted;
      return { "jobs/s": perSecond(size.jobs, since(start)) };
    } finally {
      await close();
    }
  });
}

async function latencyAtLightLoad(size: BenchSize): Promise<Record<string, Figure>> {
  const count = size.quick ? 100 : 1000;
  return withQueue("latency", async (queue, name) => {
    const addedAt = new Array<number>(count);
    const startedAt = new Array<number>(count);
    let started = 0;
    let allStarted: () => void = () => {};
    const everyJobStarted = new Promise<void>((resolve) => {
      allStarted = resolve;
    });
    const { start: startWorker, close } = await readyWorker(name, ({ i }) => {
      startedAt[i] = performance.now();
      if (++started === count) allStarted();
    });
    try {
      startWorker();
      await sleep(200); // let the worker reach its blocking wait before the first job
      const begin = performance.now();
      for (let i = 0; i < count; i++) {
        addedAt[i] = performance.now();
        await queue.add("noop", { i });
        const wait = begin + (i + 1) * LATENCY_GAP_MS - performance.now();
        if (wait > 0) await sleep(wait);
      }
      await everyJobStarted;
    } finally {
      await close();
    }
    const samples = startedAt.map((t, i) => t - (addedAt[i] ?? Number.NaN));
    return { "p50 ms": lower(percentile(samples, 50), "ms"), "p99 ms": lower(percentile(samples, 99), "ms") };
  });
}

type Reply = string | null | Error | readonly Reply[];

/** Parses one RESP reply at `at`; undefined while it is incomplete. */
function parseReply(text: string, at: number): { reply: Reply; next: number } | undefined {
  const eol = text.indexOf("\r\n", at);
  if (eol < 0) return undefined;
  const kind = text[at];
  const head = text.slice(at + 1, eol);
  if (kind === "+" || kind === ":") return { reply: head, next: eol + 2 };
  if (kind === "-") return { reply: new Error(head), next: eol + 2 };
  const length = Number(head);
  if (kind === "$") {
    if (length < 0) return { reply: null, next: eol + 2 };
    // Replies here are ASCII, so characters and bytes agree.
    if (text.length < eol + 2 + length + 2) return undefined;
    return { reply: text.slice(eol + 2, eol + 2 + length), next: eol + 2 + length + 2 };
  }
  if (kind === "*") {
    const items: Reply[] = [];
    let next = eol + 2;
    for (let k = 0; k < length; k++) {
      const item = parseReply(text, next);
      if (!item) return undefined;
      items.push(item.reply);
      next = item.next;
    }
    return { reply: items, next };
  }
  throw new Error(`unexpected reply from Redis: ${text.slice(at, at + 40)}`);
}

/** Sends inline commands to Redis over a plain socket and returns one reply per command. */
function askRedis(commands: readonly string[], timeoutMs = 1_000): Promise<Reply[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: REDIS_HOST, port: REDIS_PORT });
    let text = "";
    let settled = false;
    const finish = (outcome: Reply[] | Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const timer = setTimeout(
      () => finish(new Error(`no answer from Redis at ${REDIS_HOST}:${REDIS_PORT} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(commands.map((c) => `${c}\r\n`).join("")));
    socket.on("data", (chunk: string) => {
      text += chunk;
      try {
        const replies: Reply[] = [];
        let at = 0;
        while (replies.length < commands.length) {
          const parsed = parseReply(text, at);
          if (!parsed) return;
          replies.push(parsed.reply);
          at = parsed.next;
        }
        finish(replies);
      } catch (err) {
        finish(err instanceof Error ? err : new Error(String(err)));
      }
    });
    socket.on("error", (err) => finish(err));
    socket.on("close", () => finish(new Error(`Redis at ${REDIS_HOST}:${REDIS_PORT} closed the connection`)));
  });
}

/** The value in a `CONFIG GET name` reply ([name, value]), or undefined when refused. */
const configValue = (reply: Reply | undefined): string | undefined =>
  Array.isArray(reply) && typeof reply[1] === "string" ? reply[1] : undefined;

async function available(): Promise<true | string> {
  try {
    const bullmqEntry = createRequire(import.meta.url).resolve("bullmq");
    createRequire(bullmqEntry).resolve("ioredis");
  } catch {
    return "BullMQ 6 needs its optional peer package ioredis, which is not installed next to it";
  }
  try {
    const [pong, save, appendonly, appendfsync] = await askRedis([
      "PING",
      "CONFIG GET save",
      "CONFIG GET appendonly",
      "CONFIG GET appendfsync",
    ]);
    if (pong !== "PONG") return `Redis at ${REDIS_HOST}:${REDIS_PORT} did not answer PING`;
    const rdb = configValue(save);
    const aof = configValue(appendonly);
    if (rdb === undefined || aof === undefined) {
      persistence = "Redis persistence unknown (CONFIG GET refused)";
    } else {
      const snapshots = rdb === "" ? 'RDB snapshots off (save "")' : `RDB snapshots on (save "${rdb}")`;
      const log = aof === "yes" ? `AOF on (appendfsync ${configValue(appendfsync) ?? "?"})` : "AOF off (appendonly no)";
      const memoryOnly = rdb === "" && aof !== "yes" ? ", so jobs live in memory only" : "";
      persistence = `Redis persistence as the server runs: ${snapshots}, ${log}${memoryOnly}`;
    }
    return true;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

const system = "BullMQ";

export function bullmqScenarios(): Scenario[] {
  return [
    {
      group: "1a. enqueue, one at a time",
      system,
      get settings() {
        return `queue.add awaited one by one, default job options; ${persistence}`;
      },
      available,
      run: enqueueOneByOne,
    },
    {
      group: "1b. enqueue, in bulk",
      system,
      get settings() {
        return `queue.addBulk, ${BULK.toLocaleString("en")} jobs per call; ${persistence}`;
      },
      available,
      run: enqueueInBulk,
    },
    {
      group: "2d. processing, concurrency 8 in one process",
      system,
      get settings() {
        return `one Worker, concurrency ${CONCURRENCY}, no-op handler, default options (completed jobs kept), timed to the last completed event; ${persistence}`;
      },
      available,
      run: drainConcurrently,
    },
    {
      group: "3. enqueue→start latency at light load",
      system,
      get settings() {
        return `one job every ${LATENCY_GAP_MS} ms, one Worker (concurrency ${CONCURRENCY}) waiting in its blocking fetch; ${persistence}`;
      },
      available,
      run: latencyAtLightLoad,
    },
  ];
}
