/**
 * Child process of the write-lock test. Usage:
 *
 *   node --import tsx patient-claimer.ts <db> <owner> <out.jsonl> <idleMs> <busyTimeoutMs>
 *
 * Opens the SQLite store with that wait limit, prints `ready`, waits for `go` on stdin,
 * prints `started`, then claims one job at a time with a lease far longer than the run and finishes it `ok`,
 * until no job has been due for `idleMs`. Each claim and each finish is written to
 * `<out.jsonl>` (synchronously) with the wall-clock times it started and returned:
 * `{"kind":"first"|"claim"|"finish","id","token","owner","startedAt","endedAt"}` (`first`: the first
 * claim, also when it found nothing). Prints `done {...}`
 * and exits 0; any error (VERQ_STORE_BUSY among them) escapes and exits non-zero.
 */
import fs from "node:fs";
import { JobQueue, openStore } from "@verq/store";
import { awaitGo } from "./await-go.ts";

const [dbPath, owner, outFile, idleText, limitText] = process.argv.slice(2);
if (dbPath === undefined || owner === undefined || outFile === undefined) {
  throw new Error("usage: patient-claimer.ts <db> <owner> <out.jsonl> <idleMs> <busyTimeoutMs>");
}
const idleMs = Number(idleText ?? 1_000);
const store = await openStore({ path: dbPath, busyTimeoutMs: Number(limitText ?? 5_000) });
const queue = new JobQueue(store);
const out = fs.openSync(outFile, "a");
const record = (line: object): void => void fs.writeSync(out, `${JSON.stringify(line)}\n`);

await awaitGo();
process.stdout.write("started\n");

let claims = 0;
let firstRecorded = false;
let lastProgress = Date.now();
while (Date.now() - lastProgress < idleMs) {
  const startedAt = Date.now();
  const job = await queue.claim(owner, { leaseMs: 600_000 });
  // The first claim is recorded whatever it found: the others may have taken every job by the
  // time SQLite's busy handler (which is not fair) lets this one in.
  if (claims === 0 && !firstRecorded) {
    firstRecorded = true;
    record({ kind: "first", id: job?.id ?? null, token: job?.token ?? null, owner, startedAt, endedAt: Date.now() });
  }
  if (job === null) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    continue;
  }
  record({ kind: "claim", id: job.id, token: job.token, owner, startedAt, endedAt: Date.now() });
  claims++;
  const finishedAt = Date.now();
  const accepted = await queue.finish(job.id, job.token, "ok");
  if (!accepted) throw new Error(`finish of ${job.id} with token ${job.token} refused`);
  record({ kind: "finish", id: job.id, token: job.token, owner, startedAt: finishedAt, endedAt: Date.now() });
  lastProgress = Date.now();
}
fs.closeSync(out);
await store.close();
process.stdout.write(`done ${JSON.stringify({ claims })}\n`);
