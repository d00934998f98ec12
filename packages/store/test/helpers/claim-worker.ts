/**
 * Child process of the multi-process claim test (SPEC J3). Usage:
 *
 *   node --import tsx claim-worker.ts <db> <owner> <claims.jsonl> <seed> <leaseMs> <idleMs> [wal|delete] [permanentShare] [takeOverFrom]
 *
 * `<db>` is a SQLite file (opened in the journal mode given, WAL by default) or a `postgres://`
 * URL (the journal mode is then ignored). `permanentShare` is the share of claims finished
 * `permanent` (0.05 by default; 0 leaves every job to end `done` given attempts enough).
 * Prints `ready` once the store is open and waits for `go` on stdin (so all workers start
 * together; see stdin-barrier.ts).
 *
 * With `takeOverFrom` (another worker's owner), a handover comes first, in steps that the parent
 * opens for all workers at once, so that what it shows does not depend on the scheduler: the
 * worker claims the job `handover-<owner>` (queue of the same name) and holds it, prints
 * `claimed` and waits for `go` (every worker holds a claim before any finishes); then claims
 * `handover-<takeOverFrom>` as soon as that worker's lease has run out (the next token), prints
 * `took` and waits for `go`; then finishes its own held job with its old token (refused: another
 * process holds the job now) and the taken one with the new token (accepted).
 *
 * Then it claims from the default queue in a tight loop with short leases. Every claim is written to
 * `<claims.jsonl>` (synchronously, before anything else happens to the job) as
 * `{"kind":"claim","id","token","owner"}`; every finish as `{"kind":"finish","id","token","outcome","accepted"}`.
 * Per claim it picks: finish ok, finish retry, finish permanent, finish late (after the lease
 * has run out), or abandon (no finish at all: a worker that died). It stops when nothing has
 * been due for `idleMs`, prints a summary line `done {...}` and exits 0. Any error escapes and
 * exits non-zero (e.g. VERQ_STORE_BUSY if the store's busy retry were missing).
 */
import fs from "node:fs";
import { seededRng, type FinishOutcome } from "@verq/core";
import { JobQueue, isPostgresUrl, openStore, type ClaimedJob } from "@verq/store";
import { stdinGate } from "./stdin-barrier.ts";

/** What a worker writes per claim and per finish. */
export type ClaimWorkerLine =
  | { kind: "claim"; id: string; token: number; owner: string }
  | { kind: "finish"; id: string; token: number; outcome: FinishOutcome; accepted: boolean };

const [dbPath, owner, outFile, seedText, leaseText, idleText, journalText, permanentText, takeOverFrom] = process.argv.slice(2);
if (dbPath === undefined || owner === undefined || outFile === undefined) {
  throw new Error(
    "usage: claim-worker.ts <db> <owner> <claims.jsonl> <seed> <leaseMs> <idleMs> [wal|delete] [permanentShare] [takeOverFrom]",
  );
}
const journalMode = journalText === "delete" ? "delete" : "wal";
const permanentShare = Number(permanentText ?? 0.05);
const leaseMs = Number(leaseText ?? 5);
const idleMs = Number(idleText ?? 300);
const rng = seededRng(Number(seedText ?? 1));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const store = await openStore(isPostgresUrl(dbPath) ? { url: dbPath } : { path: dbPath, journalMode });
const queue = new JobQueue(store, {
  rng,
  defaultLeaseMs: leaseMs,
  // Retries come back within milliseconds, so tokens climb during the run.
  backoff: { baseMs: 1, factor: 2, maxMs: 8, jitter: "full" },
});
const out = fs.openSync(outFile, "a");
const record = (line: ClaimWorkerLine): void => void fs.writeSync(out, `${JSON.stringify(line)}\n`);

const gate = stdinGate();
await gate.pass("ready");

const counts = { claims: 0, finished: 0, refused: 0, abandoned: 0, idlePolls: 0 };
const claimed = (job: ClaimedJob): void => {
  counts.claims++;
  record({ kind: "claim", id: job.id, token: job.token, owner: job.owner });
};
const finish = async (job: ClaimedJob, outcome: FinishOutcome): Promise<void> => {
  const accepted = await queue.finish(job.id, job.token, outcome);
  record({ kind: "finish", id: job.id, token: job.token, outcome, accepted });
  if (accepted) counts.finished++;
  else counts.refused++;
};

if (takeOverFrom !== undefined && takeOverFrom !== "") {
  const held = await queue.claim(owner, { queues: [`handover-${owner}`] });
  if (held === null) throw new Error(`handover-${owner} was not claimable`);
  claimed(held);
  await gate.pass("claimed");
  let taken: ClaimedJob | null = null;
  // Only this worker claims from that queue: it gets the job once the holder's lease has run out.
  while (taken === null) {
    taken = await queue.claim(owner, { queues: [`handover-${takeOverFrom}`] });
    if (taken === null) await sleep(1);
  }
  claimed(taken);
  await gate.pass("took");
  await finish(held, "ok");
  await finish(taken, "ok");
}
gate.close();

let lastProgress = Date.now();
for (;;) {
  const job = await queue.claim(owner);
  if (job === null) {
    if (Date.now() - lastProgress >= idleMs) break;
    counts.idlePolls++;
    await sleep(1);
    continue;
  }
  lastProgress = Date.now();
  claimed(job);

  const roll = rng();
  if (roll < 0.2) {
    counts.abandoned++;
    continue;
  }
  let outcome: FinishOutcome = "ok";
  if (roll < 0.45) outcome = "retry";
  else if (roll < 0.45 + permanentShare) outcome = "permanent";
  // A slow worker: the lease runs out first, and another claimer may have taken the job over.
  if (rng() < 0.15) await sleep(leaseMs + 1);
  await finish(job, outcome);
}

fs.closeSync(out);
await store.close();
process.stdout.write(`done ${JSON.stringify(counts)}\n`);
