/**
 * A verq worker in its own process, for the figures that need one: two processes on one SQLite
 * file, four on one PostgreSQL database, and the peak memory of a worker. `<db>` is a SQLite
 * path or a PostgreSQL URL (then with a pool of `<poolSize>` connections). Prints "ready",
 * waits for "go" on stdin, drains the queue with a group-commit `JobWorker`, and prints one
 * JSON line: jobs finished, milliseconds, peak RSS, and on PostgreSQL what the drain cost
 * (`postgres-cost.ts`: this process's CPU, its backends' CPU, its round trips).
 *
 *   tsx worker-child.ts <db> <owner> <concurrency> <batchSize> [poolSize]
 */
import readline from "node:readline";
import { JobQueue, JobWorker, openStore } from "@verq/store";
import { meterPostgres } from "./postgres-cost.ts";

const [db, owner, concurrency, batchSize, poolSize] = process.argv.slice(2);
if (db === undefined || owner === undefined) throw new Error("usage: worker-child.ts <db> <owner> <concurrency> <batchSize>");
const postgres = /^postgres(ql)?:\/\//i.test(db);
const store = await openStore(postgres ? { url: db, poolSize: Number(poolSize ?? 10) } : { path: db });
const queue = new JobQueue(store);
process.stdout.write("ready\n");
const input = readline.createInterface({ input: process.stdin });
for await (const line of input) if (line.trim() === "go") break;
input.close();
const stopMeter = postgres ? meterPostgres() : undefined;
const start = performance.now();
const report = await new JobWorker(queue, {
  owner,
  concurrency: Number(concurrency ?? 8),
  batchSize: Number(batchSize ?? 100),
  sender: () => true,
}).drain();
const ms = performance.now() - start;
const cost = stopMeter?.();
await store.close();
const peakRssBytes = process.resourceUsage().maxRSS * 1024;
process.stdout.write(`${JSON.stringify({ ok: report.ok, ms, peakRssBytes, ...(cost === undefined ? {} : { cost }) })}\n`);
