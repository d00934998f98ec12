/**
 * verq's statements for a job's lifecycle on SQLite, replayed with raw better-sqlite3: no
 * Kysely, no machine, no JavaScript beyond building each statement's parameters and event data.
 * What it reaches on a schema is the limit of that schema for verq's writes; the bench's 2a and
 * 2b rows ("verq's statements replayed (schema limit)") replay them on the schema verq's own
 * migrations create, and `measure.ts` on variants of it that each leave one part out.
 *
 * The sequence is the store's, one `BEGIN IMMEDIATE` transaction per step, one multi-row
 * statement per table per step, a claim's `LIMIT` written into the statement as the store
 * writes it (a power of two, at least 8):
 *
 * - enqueue: the archive lookup of the ids, the `job.enqueued` events (`on conflict do nothing`,
 *   returning their positions), the `jobs` rows;
 * - claim: the queue limits, the expired leases, the due pending jobs, the `job.claimed`
 *   events, the `jobs` update;
 * - finish: the jobs by id, the `job.completed` events, the `jobs` update.
 */
import Database from "better-sqlite3";
import fs from "node:fs";
import { openStore } from "@verq/store";

/** The tables a lifecycle reads or writes: their DDL (with indexes and triggers) is the schema a variant edits. */
const LIFECYCLE_TABLES = ["events", "jobs", "job_archive", "queues"] as const;

/** Removes a SQLite file with its WAL and shared-memory files; returns the path. */
export function freshFile(file: string): string {
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
  return file;
}

/** Opens `file` with the pragmas verq's store sets (WAL, synchronous=NORMAL, foreign keys, recursive triggers). */
export function openReplayDb(file: string): Database.Database {
  const db = new Database(file);
  db.pragma("journal_mode = wal");
  db.pragma("synchronous = normal");
  db.pragma("foreign_keys = on");
  db.pragma("recursive_triggers = on");
  return db;
}

/** Creates verq's schema in `file` (a new file) with verq's own migrations, as `openStore` does. */
export async function migrateVerqSchema(file: string): Promise<void> {
  const store = await openStore({ path: freshFile(file) });
  await store.close();
}

/**
 * The DDL of the lifecycle's tables in a migrated file, as SQLite keeps it: tables first, then
 * indexes, then triggers (a trigger may name another table). What `measure.ts` edits.
 */
export function lifecycleDdl(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    const names = LIFECYCLE_TABLES.map(() => "?").join(", ");
    const rows = db
      .prepare(`select type, sql from sqlite_master where sql is not null and tbl_name in (${names})`)
      .all(...LIFECYCLE_TABLES) as { type: string; sql: string }[];
    const order = ["table", "index", "trigger"];
    return rows.sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type)).map((r) => r.sql);
  } finally {
    db.close();
  }
}

/** How the replay writes: `onConflict` false for a schema without the events' unique constraint, which the enqueue's `on conflict` clause needs. */
export interface ReplayOptions {
  readonly onConflict?: boolean;
}

const JOB_COLUMNS =
  "id, payload, state, token, attempts, max_attempts, deadline, available_at, owner, lease_until, reason, dead_since, ordering_key, lease_expiries, enqueued_at, updated_at, version, queue, priority, kind, last_failure";
const INSERT_COLUMNS =
  "id, payload, ordering_key, queue, priority, kind, enqueued_at, enqueue_position, state, token, attempts, max_attempts, deadline, available_at, owner, lease_until, reason, dead_since, lease_expiries, updated_at, version, last_failure";
const UPDATE_SET =
  "(state, token, attempts, max_attempts, deadline, available_at, owner, lease_until, reason, dead_since, lease_expiries, updated_at, version, last_failure) = (v.column1, v.column2, v.column3, v.column4, v.column5, v.column6, v.column7, v.column8, v.column9, v.column10, v.column11, v.column12, v.column13, v.column14)";
const HEAD_OF_GROUP =
  "(j.ordering_key is null or not exists ( select 1 from jobs h where h.ordering_key = j.ordering_key and h.enqueue_position < j.enqueue_position and h.state <> 'done'))";
/** Positions in a row read with JOB_COLUMNS. */
const ID = 0;
const TOKEN = 3;
const ATTEMPTS = 4;
const DEADLINE = 6;
const AVAILABLE_AT = 7;
const VERSION = 16;

const rows = (n: number, width: number): string =>
  Array.from({ length: n }, () => `(${Array.from({ length: width }, () => "?").join(", ")})`).join(", ");

/** The statements of one batch size, prepared once. */
function prepare(db: Database.Database, n: number, options: ReplayOptions) {
  const limit = 2 ** Math.ceil(Math.log2(Math.max(8, n)));
  const conflict = options.onConflict === false ? "" : " on conflict (stream_type, stream_id, version) do nothing";
  const insertEvents = `insert into events (stream_type, stream_id, version, type, data, at_ms) values ${rows(n, 6)}`;
  const update = db.prepare(
    `update jobs set ${UPDATE_SET} from (values ${rows(n, 16)}) as v where jobs.id = v.column15 and jobs.version = v.column16`,
  );
  return {
    archive: db
      .prepare(
        `select id, state, token, reason, enqueued_at, finished_at, pruned_at from job_archive where id in (values ${rows(n, 1)})`,
      )
      .raw(),
    enqueued: db.prepare(`${insertEvents}${conflict} returning stream_id, version, position`).raw(),
    insertJobs: db.prepare(`insert into jobs (${INSERT_COLUMNS}) values ${rows(n, 22)}`),
    limits: db
      .prepare(`select "name", "max_leased" from "queues" where "name" in (?) and "max_leased" is not null order by "name"`)
      .raw(),
    expired: db
      .prepare(
        `select ${JOB_COLUMNS} from jobs j where j.state = 'leased' and j.lease_until <= ? and j.queue in (?) and ${HEAD_OF_GROUP} order by j.lease_until, j.enqueue_position limit ${limit}`,
      )
      .raw(),
    due: db
      .prepare(
        `select ${JOB_COLUMNS}, j.enqueue_position from jobs j where j.state = 'pending' and j.queue = ? and j.available_at <= ? and ${HEAD_OF_GROUP} order by j.priority desc, j.available_at, j.enqueue_position limit ${limit}`,
      )
      .raw(),
    events: db.prepare(`${insertEvents} returning stream_id, version, position`).raw(),
    byId: db.prepare(`select ${JOB_COLUMNS} from jobs where id in (values ${rows(n, 1)})`).raw(),
    update,
  };
}

/**
 * Replays `jobs` lifecycles (enqueue, claim, finish ok) on `db`, which holds a verq schema,
 * `batch` jobs per step and transaction; returns the milliseconds it took. Ids are zero-padded
 * sequence numbers, as the bench's; throws when a step does not see every job of its batch.
 */
export function replayLifecycles(db: Database.Database, jobs: number, batch: number, options: ReplayOptions = {}): number {
  const prepared = new Map<number, ReturnType<typeof prepare>>();
  const statements = (n: number) => {
    let s = prepared.get(n);
    if (s === undefined) prepared.set(n, (s = prepare(db, n, options)));
    return s;
  };
  const immediate = <T>(work: () => T): T => db.transaction(work).immediate();
  const start = performance.now();
  for (let done = 0; done < jobs; done += batch) {
    const n = Math.min(batch, jobs - done);
    const s = statements(n);
    const ids = Array.from({ length: n }, (_, k) => `job-${String(done + k).padStart(9, "0")}`);
    let now = Date.now();
    immediate(() => {
      s.archive.all(...ids);
      const events: unknown[] = [];
      for (const id of ids) {
        const data = { id, payload: { quantity: done }, maxAttempts: 5, deadline: now + 86_400_000, availableAt: now };
        events.push(
          "job",
          id,
          1,
          "job.enqueued",
          JSON.stringify({ ...data, orderingKey: null, queue: "default", priority: 0, at: now }),
          now,
        );
      }
      const positions = s.enqueued.all(...events) as [string, number, number][];
      if (positions.length !== n) throw new Error("replay: an enqueue lost a job");
      const values: unknown[] = [];
      for (const [index, id] of ids.entries()) {
        values.push(id, JSON.stringify({ quantity: done }), null, "default", 0, null, now, positions[index]?.[2]);
        values.push("pending", 0, 0, 5, now + 86_400_000, now, null, null, null, null, 0, now, 1, null);
      }
      s.insertJobs.run(...values);
    });
    now = Date.now();
    immediate(() => {
      s.limits.all("default");
      s.expired.all(now, "default");
      const due = (s.due.all("default", now) as unknown[][]).slice(0, n);
      if (due.length !== n) throw new Error("replay: a claim found fewer jobs than it enqueued");
      const events: unknown[] = [];
      const values: unknown[] = [];
      const leaseUntil = now + 30_000;
      for (const job of due) {
        const token = Number(job[TOKEN]) + 1;
        events.push(
          "job",
          job[ID],
          Number(job[VERSION]) + 1,
          "job.claimed",
          JSON.stringify({ token, owner: "w", leaseUntil, at: now }),
          now,
        );
        values.push("leased", token, Number(job[ATTEMPTS]) + 1, 5, job[DEADLINE], job[AVAILABLE_AT], "w", leaseUntil);
        values.push(null, null, 0, now, Number(job[VERSION]) + 1, null, job[ID], job[VERSION]);
      }
      s.events.all(...events);
      if (s.update.run(...values).changes !== n) throw new Error("replay: a claim's update missed a job");
    });
    now = Date.now();
    immediate(() => {
      const held = s.byId.all(...ids) as unknown[][];
      if (held.length !== n) throw new Error("replay: a finish found fewer jobs than it claimed");
      const events: unknown[] = [];
      const values: unknown[] = [];
      for (const job of held) {
        const token = Number(job[TOKEN]);
        events.push("job", job[ID], Number(job[VERSION]) + 1, "job.completed", JSON.stringify({ token, at: now }), now);
        values.push("done", token, job[ATTEMPTS], 5, job[DEADLINE], job[AVAILABLE_AT], null, null);
        values.push(null, null, 0, now, Number(job[VERSION]) + 1, null, job[ID], job[VERSION]);
      }
      s.events.all(...events);
      if (s.update.run(...values).changes !== n) throw new Error("replay: a finish's update missed a job");
    });
  }
  return performance.now() - start;
}
