/**
 * Child process of the restart test (SPEC J9). Usage:
 *
 *   node --import tsx crash-writer.ts <db> <report.json> <wal|delete>
 *
 * Enqueues, claims and finishes jobs (each its own committed transaction), writes what it
 * committed to `<report.json>` (synchronously), then opens one more write transaction, writes
 * inside it, and calls `process.exit(73)` before it commits: no `finally`, no `close()`.
 * The parent reopens the file and checks that every committed change is there and the
 * uncommitted one is not.
 */
import fs from "node:fs";
import { ManualClock, type FinishOutcome } from "@verq/core";
import { JobQueue, openStore } from "@verq/store";
import { sql } from "kysely";
import { CRASH_EXIT_CODE, UNCOMMITTED_JOB, type CrashReport } from "./crash-report.ts";

const [dbPath, reportPath, journalText] = process.argv.slice(2);
if (dbPath === undefined || reportPath === undefined) throw new Error("usage: crash-writer.ts <db> <report.json> <wal|delete>");

const store = await openStore({ path: dbPath, journalMode: journalText === "delete" ? "delete" : "wal" });
const clock = new ManualClock(1_800_000_000_000);
const queue = new JobQueue(store, { clock, backoff: { baseMs: 1_000, factor: 2, maxMs: 60_000, jitter: "none" } });

const ids = Array.from({ length: 20 }, (_, i) => `crash-${String(i).padStart(2, "0")}`);
for (const [i, id] of ids.entries()) await queue.enqueue({ id, payload: { quantity: i + 1 } });
const outcomes: (FinishOutcome | null)[] = ["ok", "ok", "ok", "retry", "permanent", null, null, null];
for (const outcome of outcomes) {
  const job = await queue.claim("crash-worker", { leaseMs: 60_000 });
  if (job === null) throw new Error("nothing to claim");
  if (outcome !== null) await queue.finish(job.id, job.token, outcome);
}
const dead = await queue.list("dead");
for (const job of dead) await queue.redrive(job.id, { note: "OPS-73" });

const jobs: Record<string, unknown> = {};
for (const id of ids) jobs[id] = await queue.get(id);
const count = await sql<{ n: number }>`select count(*) as n from events`.execute(store.db);
const report: CrashReport = { jobs, eventCount: Number(count.rows[0]?.n), redrives: dead.length, clockNow: clock.now() };
fs.writeFileSync(reportPath, JSON.stringify(report));

// Die in the middle of a write transaction: its writes must vanish with it.
await store.transaction(async (trx) => {
  await sql`insert into events (stream_type, stream_id, version, type, data, at_ms)
    values ('job', ${UNCOMMITTED_JOB}, 1, 'job.enqueued', '{}', ${clock.now()})`.execute(trx);
  await sql`insert into counters (name, value) values ('crash.uncommitted', 1)`.execute(trx);
  process.exit(CRASH_EXIT_CODE);
});
