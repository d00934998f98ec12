/**
 * Baseline: raw better-sqlite3, the limit an embedded store reaches on this disk. A minimal job
 * table (integer id, payload, state, token, lease) with a partial index for due work, at verq's
 * default durability (WAL, synchronous=NORMAL). Every statement is prepared once; no event log.
 */
import Database from "better-sqlite3";
import { bytesOnDisk, freshDb } from "../sqlite-files.ts";
import { lower, perSecond, since, type BenchSize, type Scenario } from "../scenario.ts";

const DURABILITY = "WAL, synchronous=NORMAL (as verq)";

/** The minimal job table in a new SQLite `file`, with its statements prepared. */
export function openRaw(file: string) {
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

/**
 * `jobs` lifecycles on the minimal table: insert, claim and finish of `batch` jobs, each step
 * its own committed transaction; returns the milliseconds it took.
 */
export function rawLifecycles(raw: ReturnType<typeof openRaw>, jobs: number, batch: number): number {
  const start = performance.now();
  for (let done = 0; done < jobs; done += batch) {
    const now = Date.now();
    const n = Math.min(batch, jobs - done);
    raw.immediate(() => {
      for (let i = 0; i < n; i++) raw.insert.run(JSON.stringify({ quantity: done + i }), now);
    });
    const claimed = raw.immediate(() => raw.claim.all(now + 30_000, now, n)) as { id: number; token: number }[];
    if (claimed.length !== n) throw new Error("raw: a claim found fewer jobs than it inserted");
    raw.immediate(() => {
      for (const job of claimed) raw.finish.run(job.id, job.token);
    });
  }
  return since(start);
}

/** The lifecycles of `size.jobs` jobs, `batch` per transaction; the bytes per job after a checkpoint. */
function lifecycles(size: BenchSize, batch: number): { ms: number; bytes: number } {
  const raw = openRaw(freshDb(size.dir, "raw"));
  try {
    const ms = rawLifecycles(raw, size.jobs, batch);
    raw.db.pragma("wal_checkpoint(TRUNCATE)");
    return { ms, bytes: bytesOnDisk(raw.file) / size.jobs };
  } finally {
    raw.db.close();
  }
}

function enqueueRate(size: BenchSize, perTransaction: number): number {
  const raw = openRaw(freshDb(size.dir, "raw"));
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
      run: (size) => Promise.resolve({ "jobs/s": perSecond(size.jobs, lifecycles(size, 1).ms) }),
    },
    {
      group: "2b. lifecycle, 100 jobs per transaction",
      system,
      settings: `insert, claim, finish of 100 jobs: three transactions per 100 jobs; ${DURABILITY}`,
      run: (size) => Promise.resolve({ "jobs/s": perSecond(size.jobs, lifecycles(size, 100).ms) }),
    },
    {
      group: "7. bytes on disk per job lifecycle",
      system,
      settings: "after the batched lifecycle and a WAL checkpoint; no history kept (done rows only)",
      run: (size) => Promise.resolve({ "bytes/job": lower(lifecycles(size, 100).bytes, "bytes/job") }),
    },
  ];
}
