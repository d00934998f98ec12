/**
 * What the SQLite hot path is chosen against (ADR 0012), each on the same machine in one run:
 * a compiled query through Kysely's executor inside a transaction against the prepared
 * statement called directly; an empty `store.transaction` against `BEGIN IMMEDIATE` + `COMMIT`;
 * and a `jobs` row read as an object (18 properties) against the same row as an array, on a
 * file of 20,000 pending jobs. Medians of 5 rounds, after one round not counted.
 *
 *   npx -y pnpm@10 --filter @verq/bench hot-path
 */
import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { JobQueue, openStore } from "@verq/store";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verq-hot-path-"));

async function perCall(calls: number, work: () => unknown): Promise<number> {
  const rounds: number[] = [];
  for (let round = 0; round <= 5; round++) {
    const start = performance.now();
    for (let i = 0; i < calls; i++) await work();
    if (round > 0) rounds.push(((performance.now() - start) * 1000) / calls);
  }
  return median(rounds);
}

const store = await openStore({ path: path.join(dir, "kysely.sqlite") });
const query = store.db.selectFrom("counters").selectAll().where("name", "=", "x").compile();
let kyselyQuery = Number.NaN;
await store.transaction(async (trx) => {
  kyselyQuery = await perCall(20_000, () => trx.executeQuery(query));
});
const emptyTransaction = await perCall(2_000, () => store.transaction(() => Promise.resolve()));
await store.close();

const raw = new Database(path.join(dir, "raw.sqlite"));
raw.pragma("journal_mode = wal");
raw.pragma("synchronous = normal");
raw.exec("create table counters (name text primary key, value integer not null)");
const select = raw.prepare("select * from counters where name = ?");
const begin = raw.prepare("begin immediate");
const commit = raw.prepare("commit");
// Inside a transaction, as the Kysely figure is.
begin.run();
const rawQuery = await perCall(20_000, () => select.all("x"));
commit.run();
const rawTransaction = await perCall(2_000, () => {
  begin.run();
  commit.run();
});
raw.close();

// A jobs table as verq's migrations make it, filled through the queue.
const filled = await openStore({ path: path.join(dir, "jobs.sqlite") });
const queue = new JobQueue(filled);
for (let done = 0; done < 20_000; done += 1_000) {
  await queue.enqueueMany(
    Array.from({ length: 1_000 }, (_, i) => ({ id: `job-${String(done + i).padStart(8, "0")}`, payload: { i } })),
  );
}
await filled.close();
const jobs = new Database(path.join(dir, "jobs.sqlite"));
const text = "select * from jobs where state = 'pending' order by available_at, enqueue_position limit 128";
const asObjects = jobs.prepare(text);
const asArrays = jobs.prepare(text).raw(true);
const objectRow = (await perCall(300, () => asObjects.all())) / 128;
const arrayRow = (await perCall(300, () => asArrays.all())) / 128;
jobs.close();
fs.rmSync(dir, { recursive: true, force: true });

console.log("| what | through Kysely / as objects | direct / as arrays |\n|---|---:|---:|");
console.log(`| one compiled query in a transaction | ${kyselyQuery.toFixed(2)} µs | ${rawQuery.toFixed(2)} µs |`);
console.log(`| an empty transaction | ${emptyTransaction.toFixed(2)} µs | ${rawTransaction.toFixed(2)} µs |`);
console.log(`| one jobs row read (128 a query) | ${objectRow.toFixed(2)} µs | ${arrayRow.toFixed(2)} µs |`);
