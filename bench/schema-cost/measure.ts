/**
 * What the event log and each part of the schema cost below verq's code: verq's statement
 * sequence for one lifecycle (enqueue, claim, finish) replayed with raw better-sqlite3, no
 * Kysely, no machine, on verq's schema and on variants that each leave one part out, next to the
 * raw baseline's minimal job table (bench/src/scenarios/raw-sqlite.ts). Two shapes: each step its
 * own commit (figure 2a's), and 100 jobs per step and commit (2b's). Backs docs/performance.md's "Where
 * the time goes" and the choice of migration 005 (positions without AUTOINCREMENT).
 *
 *   npx tsx bench/schema-cost/measure.ts [--rounds 3]
 */
import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({ options: { rounds: { type: "string", default: "3" } } });
const rounds = Number(args.rounds);

const fresh = (p: string) => {
  for (const s of ["", "-wal", "-shm"]) fs.rmSync(p + s, { force: true });
  return p;
};

/** One schema: verq's (migration 005) with at most one part changed. */
interface Variant {
  readonly name: string;
  readonly autoincrement?: boolean;
  readonly jobsWithoutRowid?: boolean;
  readonly without?: "jobs_dead_since" | "jobs_ordering_group" | "checks" | "events unique";
}
const variants: Variant[] = [
  { name: "verq (005)" },
  { name: "AUTOINCREMENT positions (001-004)", autoincrement: true },
  { name: "jobs without rowid", jobsWithoutRowid: true },
  { name: "no jobs_dead_since index", without: "jobs_dead_since" },
  { name: "no jobs_ordering_group index", without: "jobs_ordering_group" },
  { name: "no check constraints", without: "checks" },
  { name: "no events unique (unsafe: the race arbiter)", without: "events unique" },
];

function schema(v: Variant): string {
  const checks = v.without === "checks";
  const index = (name: string, ddl: string) => (v.without === name ? "" : ddl);
  return `create table events (position integer primary key${v.autoincrement === true ? " autoincrement" : ""},
      stream_type text not null, stream_id text not null, version integer not null, type text not null, data text not null,
      at_ms integer not null${v.without === "events unique" ? "" : ", unique (stream_type, stream_id, version)"});
    create table jobs (id text primary key, payload text not null,
      state text not null${checks ? "" : " check (state in ('pending', 'leased', 'done', 'dead'))"},
      token integer not null, attempts integer not null, max_attempts integer not null, deadline integer not null,
      available_at integer not null, owner text, lease_until integer,
      reason text${checks ? "" : " check (reason in ('permanent', 'exhausted', 'deadline'))"}, dead_since integer,
      ordering_key text, lease_expiries integer not null, enqueued_at integer not null, enqueue_position integer not null,
      updated_at integer not null, version integer not null
      ${checks ? "" : ", check ((state = 'dead') = (reason is not null)), check ((state = 'leased') = (lease_until is not null))"})
      ${v.jobsWithoutRowid === true ? " without rowid" : ""};
    create index jobs_pending_due on jobs (available_at, enqueue_position) where state = 'pending';
    create index jobs_leased_expiry on jobs (lease_until) where state = 'leased';
    ${index("jobs_dead_since", "create index jobs_dead_since on jobs (dead_since) where state = 'dead';")}
    ${index("jobs_ordering_group", "create index jobs_ordering_group on jobs (ordering_key, enqueue_position) where ordering_key is not null;")}`;
}

function open(name: string): Database.Database {
  const db = new Database(fresh(`${os.tmpdir()}/verq-schema-cost-${name.replace(/[^a-z0-9]+/gi, "-")}.sqlite`));
  db.pragma("journal_mode = wal");
  db.pragma("synchronous = normal");
  return db;
}

/** Jobs per second of the raw baseline's minimal table: the same three steps, `batch` jobs per commit. */
function runMinimal(jobs: number, batch: number): number {
  const db = open("minimal");
  db.exec(
    "create table jobs (id integer primary key, payload text not null, state text not null, token integer not null default 0, lease_until integer, available_at integer not null); create index jobs_due on jobs (available_at) where state = 'pending'",
  );
  const ins = db.prepare("insert into jobs (payload, state, available_at) values (?, 'pending', ?)");
  const claim = db.prepare(
    "update jobs set state = 'leased', token = token + 1, lease_until = ? where id in (select id from jobs where state = 'pending' and available_at <= ? order by available_at limit ?) returning id, token",
  );
  const fin = db.prepare("update jobs set state = 'done', lease_until = null where id = ? and token = ?");
  const tx = <T>(f: () => T): T => db.transaction(f).immediate();
  const t = performance.now();
  for (let i = 0; i < jobs; i += batch) {
    const now = Date.now();
    tx(() => {
      for (let k = 0; k < batch; k++) ins.run("{}", now);
    });
    const claimed = tx(() => claim.all(now + 30000, now, batch)) as { id: number; token: number }[];
    tx(() => {
      for (const j of claimed) fin.run(j.id, j.token);
    });
  }
  const ms = performance.now() - t;
  db.close();
  return jobs / (ms / 1000);
}

/** Jobs per second of verq's statements on `v`: each step reads, appends an event and writes the row, `batch` jobs per commit. */
function run(v: Variant, jobs: number, batch: number): number {
  const db = open(v.name);
  db.exec(schema(v));
  const ev = db.prepare(
    "insert into events (stream_type, stream_id, version, type, data, at_ms) values ('job', ?, ?, ?, ?, ?) returning position",
  );
  const insJob = db.prepare(
    `insert into jobs values (?, ?, 'pending', 0, 0, 5, ?, ?, null, null, null, null, null, 0, ?, ?, ?, 1)`,
  );
  const sel = db.prepare(
    `select * from jobs j where j.state = 'pending' and j.available_at <= ? order by j.available_at, j.enqueue_position limit ${batch}`,
  );
  const upd = db.prepare(
    `update jobs set state = ?, token = ?, owner = ?, lease_until = ?, updated_at = ?, version = ? where id = ? and version = ?`,
  );
  const byId = db.prepare(`select * from jobs where id = ?`);
  const tx = <T>(f: () => T): T => db.transaction(f).immediate();
  const t = performance.now();
  for (let i = 0; i < jobs; i += batch) {
    const now = Date.now();
    const ids = Array.from({ length: batch }, (_, k) => `job-${String(i + k).padStart(9, "0")}`);
    tx(() => {
      for (const id of ids) {
        const p = (ev.get(id, 1, "job.enqueued", JSON.stringify({ id, payload: { q: i } }), now) as { position: number })
          .position;
        insJob.run(id, '{"q":1}', now + 1e6, now, now, p, now);
      }
    });
    tx(() => {
      for (const j of sel.all(now) as { id: string }[]) {
        ev.get(j.id, 2, "job.claimed", '{"token":1}', now);
        upd.run("leased", 1, "w", now + 30000, now, 2, j.id, 1);
      }
    });
    tx(() => {
      for (const id of ids) {
        const j = byId.get(id) as { version: number };
        ev.get(id, 3, "job.completed", '{"token":1}', now);
        upd.run("done", 1, null, null, now, 3, id, j.version);
      }
    });
  }
  const ms = performance.now() - t;
  db.close();
  return jobs / (ms / 1000);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
for (const [label, jobs, batch] of [
  ["each step its own commit", 4_000, 1],
  ["100 jobs per step and commit", 30_000, 100],
] as const) {
  const results = new Map<string, number[]>();
  for (let r = 0; r < rounds; r++) {
    // Interleaved, so that a noisy neighbour hurts every variant alike.
    results.set("raw minimal table", [...(results.get("raw minimal table") ?? []), runMinimal(jobs, batch)]);
    for (const v of variants) results.set(v.name, [...(results.get(v.name) ?? []), run(v, jobs, batch)]);
  }
  const verq = median(results.get("verq (005)") ?? []);
  console.log(`\njobs/s, ${label}, WAL + synchronous=NORMAL, median of ${rounds} rounds`);
  console.log("| schema | jobs/s | vs verq (005) |\n|---|---:|---:|");
  for (const [name, xs] of results) {
    console.log(`| ${name} | ${Math.round(median(xs)).toLocaleString("en")} | ${(median(xs) / verq).toFixed(2)}× |`);
  }
}
