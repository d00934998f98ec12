/**
 * Baseline: raw better-sqlite3, the limit an embedded store reaches on this disk. A minimal job
 * table (integer id, payload, state, token, lease) with a partial index for due work, at verq's
 * default durability (WAL, synchronous=NORMAL). Every statement is prepared once; no event log.
 */
import Database from "better-sqlite3";
import { bytesOnDisk, freshDb } from "../sqlite-files.ts";
import { lower, perSecond, since, type BenchSize, type Scenario } from "../scenario.ts";

const DURABILITY = "WAL, synchronous=NORMAL (as verq)";

function openRaw(dir: string) {
  const file = freshDb(dir, "raw");
  const db = new Database(file);
  db.pragma("journal_mode = wal");
  db.pragma("synchronous = normal");
  db.exec(`create table jobs (id integer primary key, payload text not null, state text not null,
    token integer not null default 0, lease_until integer, available_at integer not null);
    create index jobs_due on jobs (available_at) where state = 'pending'`);
  const insert = db.prepare("insert into jobs (payload, state, available_at) values (?, 'pending', ?)");
  const claim = db.prepare(`update jobs set state = 'leased', token = token + 1, lease_until = ?
    where id in (select id from jobs where state = 'pending' and available_at <= ? order by available_at limit ?) returning id, token`);
  const finish = db.prepare("update jobs set state = 'done', lease_until = null where id = ? and token = ? and state = 'leased'");
  const immediate = <T>(work: () => T): T => db.transaction(work).immediate();
  return { db, file, insert, claim, finish, immediate };
}

/** One lifecycle per job, each step its own committed transaction (insert, claim, finish). */
async function perCommitLifecycle(size: BenchSize): Promise<number> {
  const raw = openRaw(size.dir);
  const start = performance.now();
  for (let i = 0; i < size.jobs; i++) {
    const now = Date.now();
    raw.immediate(() => raw.insert.run(JSON.stringify({ quantity: i }), now));
    const [job] = raw.immediate(() => raw.claim.all(now + 30_000, now, 1)) as { id: number; token: number }[];
    if (job === undefined) throw new Error("raw: nothing to claim");
    raw.immediate(() => raw.finish.run(job.id, job.token));
  }
  const ms = since(start);
  raw.db.close();
  await Promise.resolve();
  return ms;
}

/** The same lifecycle, 100 jobs per transaction for each step. */
function batchedLifecycle(size: BenchSize): { ms: number; bytes: number } {
  const raw = openRaw(size.dir);
  const start = performance.now();
  for (let done = 0; done < size.jobs; done += 100) {
    const now = Date.now();
    const n = Math.min(100, size.jobs - done);
    raw.immediate(() => {
      for (let i = 0; i < n; i++) raw.insert.run(JSON.stringify({ quantity: done + i }), now);
    });
    const jobs = raw.immediate(() => raw.claim.all(now + 30_000, now, n)) as { id: number; token: number }[];
    raw.immediate(() => {
      for (const job of jobs) raw.finish.run(job.id, job.token);
    });
  }
  const ms = since(start);
  raw.db.pragma("wal_checkpoint(TRUNCATE)");
  const bytes = bytesOnDisk(raw.file) / size.jobs;
  raw.db.close();
  return { ms, bytes };
}

function enqueueRate(size: BenchSize, perTransaction: number): number {
  const raw = openRaw(size.dir);
  const start = performance.now();
  for (let done = 0; done < size.jobs; done += perTransaction) {
    const now = Date.now();
    const n = Math.min(perTransaction, size.jobs - done);
    raw.immediate(() => {
      for (let i = 0; i < n; i++) raw.insert.run(JSON.stringify({ quantity: done + i }), now);
    });
  }
  const ms = since(start);
  raw.db.close();
  return ms;
}

export function rawSqliteScenarios(): Scenario[] {
  const system = "raw better-sqlite3";
  return [
    {
      group: "1a. enqueue, one at a time",
      system,
      settings: `one insert per transaction; ${DURABILITY}`,
      run: (size) => Promise.resolve({ "jobs/s": perSecond(size.jobs, enqueueRate(size, 1)) }),
    },
    {
      group: "1b. enqueue, in bulk",
      system,
      settings: `1,000 inserts per transaction; ${DURABILITY}`,
      run: (size) => Promise.resolve({ "jobs/s": perSecond(size.jobs, enqueueRate(size, 1_000)) }),
    },
    {
      group: "2a. lifecycle, each step its own commit",
      system,
      settings: `insert, claim, finish: three transactions per job; ${DURABILITY}`,
      run: async (size) => ({ "jobs/s": perSecond(size.jobs, await perCommitLifecycle(size)) }),
    },
    {
      group: "2b. lifecycle, 100 jobs per transaction",
      system,
      settings: `insert, claim, finish of 100 jobs: three transactions per 100 jobs; ${DURABILITY}`,
      run: (size) => Promise.resolve({ "jobs/s": perSecond(size.jobs, batchedLifecycle(size).ms) }),
    },
    {
      group: "7. bytes on disk per job lifecycle",
      system,
      settings: "after the batched lifecycle and a WAL checkpoint; no history kept (done rows only)",
      run: (size) => Promise.resolve({ "bytes/job": lower(batchedLifecycle(size).bytes, "bytes/job") }),
    },
  ];
}
