/**
 * Child process of the queue-limit test. Usage:
 *
 *   node --import tsx limited-claim-worker.ts <db> <owner> <queues> <batch> <holdMs> <idleMs>
 *
 * `<db>` is a SQLite file or a `postgres://` URL; `<queues>` a comma-separated list. Prints
 * `ready` once the store is open, waits for `go` on stdin, then claims up to `<batch>` jobs at a
 * time from the queues, holds each for 0 to `<holdMs>` ms (as a sender would) and finishes it
 * `ok`, until nothing has been due for `<idleMs>`. Prints `done {"claimed":n,"rounds":n}` and
 * exits 0; any error escapes and exits non-zero.
 */
import { seededRng } from "@verq/core";
import { JobQueue, isPostgresUrl, openStore } from "@verq/store";
import { awaitGo } from "./await-go.ts";

const [db, owner, queuesText, batchText, holdText, idleText] = process.argv.slice(2);
if (db === undefined || owner === undefined || queuesText === undefined) {
  throw new Error("usage: limited-claim-worker.ts <db> <owner> <queues> <batch> <holdMs> <idleMs>");
}
const queues = queuesText.split(",");
const batch = Number(batchText ?? 2);
const holdMs = Number(holdText ?? 5);
const idleMs = Number(idleText ?? 500);
const rng = seededRng(owner.length * 7919 + process.pid);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const store = await openStore(isPostgresUrl(db) ? { url: db } : { path: db });
// Leases far longer than the run: no lease runs out, so every lease ends by a finish.
const queue = new JobQueue(store, { defaultLeaseMs: 600_000 });

await awaitGo();

let claimed = 0;
let rounds = 0;
let lastProgress = Date.now();
for (;;) {
  const jobs = await queue.claimMany(owner, batch, { queues });
  if (jobs.length === 0) {
    if (Date.now() - lastProgress >= idleMs) break;
    await sleep(1);
    continue;
  }
  lastProgress = Date.now();
  claimed += jobs.length;
  rounds++;
  await Promise.all(
    jobs.map(async (job) => {
      await sleep(Math.floor(rng() * (holdMs + 1)));
      if (!(await queue.finish(job.id, job.token, "ok"))) throw new Error(`finish of ${job.id} refused`);
    }),
  );
}
await store.close();
process.stdout.write(`done ${JSON.stringify({ claimed, rounds })}\n`);
