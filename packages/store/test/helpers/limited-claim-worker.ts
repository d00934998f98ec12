/**
 * Child process of the queue-limit test. Usage:
 *
 *   node --import tsx limited-claim-worker.ts <db> <owner> <records.jsonl> <limited> <other> <share> <batch> <holdMs> <idleMs>
 *
 * `<db>` is a SQLite file or a `postgres://` URL; `<limited>` is a queue with a limit, `<other>`
 * one without. Leases are far longer than the run, so every lease ends by a finish. The parent
 * opens each step for all workers at once (see stdin-barrier.ts), so that what the steps show
 * does not depend on the scheduler:
 *
 * 1. prints `ready` once the store is open and waits for `go`;
 * 2. claims `<share>` jobs of `<limited>` in one call (the parent gives shares that add up to the
 *    limit, so no claim can be refused), prints `holding` and waits for `go`: every worker holds
 *    its share before any finishes, and the queue is at its limit;
 * 3. claims `<batch>` jobs of both queues in one call (none of `<limited>` may come back while it
 *    is full), prints `refused` and waits for `go`: every worker has asked before any finishes;
 * 4. finishes what it holds `ok`, then claims up to `<batch>` jobs of both queues at a time,
 *    holding each for 0 to `<holdMs>` ms (as a sender would) before finishing it `ok`, until
 *    nothing has been due for `<idleMs>`.
 *
 * Every claim is written to `<records.jsonl>` (synchronously, before anything else happens to the
 * job) as `{"kind":"claim","step","id","token","owner","queue"}` with `step` one of `share`,
 * `probe`, `run`; every finish as `{"kind":"finish","id","token","accepted"}`. Prints
 * `done {"claimed","finished","refused","rounds"}` and exits 0; any error escapes and exits non-zero.
 */
import fs from "node:fs";
import { seededRng } from "@verq/core";
import { JobQueue, isPostgresUrl, openStore, type ClaimedJob } from "@verq/store";
import { stdinGate } from "./stdin-barrier.ts";

/** What a worker writes per claim and per finish. */
export type LimitedWorkerLine =
  | { kind: "claim"; step: "share" | "probe" | "run"; id: string; token: number; owner: string; queue: string }
  | { kind: "finish"; id: string; token: number; accepted: boolean };

const [db, owner, outFile, limited, other, shareText, batchText, holdText, idleText] = process.argv.slice(2);
if (db === undefined || owner === undefined || outFile === undefined || limited === undefined || other === undefined) {
  throw new Error(
    "usage: limited-claim-worker.ts <db> <owner> <records.jsonl> <limited> <other> <share> <batch> <holdMs> <idleMs>",
  );
}
const share = Number(shareText ?? 1);
const batch = Number(batchText ?? 2);
const holdMs = Number(holdText ?? 5);
const idleMs = Number(idleText ?? 500);
const queues = [limited, other];
const rng = seededRng(owner.length * 7919 + process.pid);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const store = await openStore(isPostgresUrl(db) ? { url: db } : { path: db });
const queue = new JobQueue(store, { defaultLeaseMs: 600_000 });
const out = fs.openSync(outFile, "a");
const record = (line: LimitedWorkerLine): void => void fs.writeSync(out, `${JSON.stringify(line)}\n`);

const counts = { claimed: 0, finished: 0, refused: 0, rounds: 0 };
const claimed = (step: "share" | "probe" | "run", jobs: readonly ClaimedJob[]): void => {
  for (const job of jobs) {
    counts.claimed++;
    record({ kind: "claim", step, id: job.id, token: job.token, owner: job.owner, queue: job.queue });
  }
};
const finish = async (job: ClaimedJob): Promise<void> => {
  const accepted = await queue.finish(job.id, job.token, "ok");
  record({ kind: "finish", id: job.id, token: job.token, accepted });
  if (accepted) counts.finished++;
  else counts.refused++;
};

const gate = stdinGate();
await gate.pass("ready");
// The parent judges what came back: a short share is recorded, not thrown, so that it shows.
const held = await queue.claimMany(owner, share, { queues: [limited] });
claimed("share", held);
await gate.pass("holding");
const probed = await queue.claimMany(owner, batch, { queues });
claimed("probe", probed);
await gate.pass("refused");
gate.close();
await Promise.all([...held, ...probed].map(finish));

let lastProgress = Date.now();
for (;;) {
  const jobs = await queue.claimMany(owner, batch, { queues });
  if (jobs.length === 0) {
    if (Date.now() - lastProgress >= idleMs) break;
    await sleep(1);
    continue;
  }
  lastProgress = Date.now();
  counts.rounds++;
  claimed("run", jobs);
  await Promise.all(
    jobs.map(async (job) => {
      await sleep(Math.floor(rng() * (holdMs + 1)));
      await finish(job);
    }),
  );
}
fs.closeSync(out);
await store.close();
process.stdout.write(`done ${JSON.stringify(counts)}\n`);
