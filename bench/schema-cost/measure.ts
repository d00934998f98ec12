/**
 * What the event log costs below verq's code: verq's statement sequence for one lifecycle
 * (enqueue, claim, finish; each its own transaction) replayed with raw better-sqlite3, no
 * Kysely, no machine, on verq's schema and on variants of it, next to the raw baseline's
 * minimal job table (bench/src/scenarios/raw-sqlite.ts). Backs the README's "Where the time
 * goes": the ceiling of one job per transaction with an event log and its projection.
 *
 *   npx tsx bench/schema-cost/measure.ts
 */
import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
const fresh = (p: string) => {
  for (const s of ["", "-wal", "-shm"]) fs.rmSync(p + s, { force: true });
  return p;
};
type V = { name: string; eventsPk: string; jobsSuffix: string };
const variants: V[] = [
  { name: "current", eventsPk: "integer primary key autoincrement", jobsSuffix: "" },
  { name: "jobs without rowid", eventsPk: "integer primary key autoincrement", jobsSuffix: " without rowid" },
  { name: "events no autoinc", eventsPk: "integer primary key", jobsSuffix: "" },
  { name: "both", eventsPk: "integer primary key", jobsSuffix: " without rowid" },
];
const N = 4000;

/** The raw baseline: one minimal table, the same three transactions per job. */
function runMinimal(): number {
  const db = new Database(fresh(`${os.tmpdir()}/verq-schema-cost-minimal.sqlite`));
  db.pragma("journal_mode = wal");
  db.pragma("synchronous = normal");
  db.exec(
    "create table jobs (id integer primary key, payload text not null, state text not null, token integer not null default 0, lease_until integer, available_at integer not null); create index jobs_due on jobs (available_at) where state = 'pending'",
  );
  const ins = db.prepare("insert into jobs (payload, state, available_at) values (?, 'pending', ?)");
  const claim = db.prepare(
    "update jobs set state = 'leased', token = token + 1, lease_until = ? where id in (select id from jobs where state = 'pending' and available_at <= ? order by available_at limit 1) returning id, token",
  );
  const fin = db.prepare("update jobs set state = 'done', lease_until = null where id = ? and token = ?");
  const tx = <T>(f: () => T): T => db.transaction(f).immediate();
  const t = performance.now();
  for (let i = 0; i < N; i++) {
    const now = Date.now();
    tx(() => ins.run("{}", now));
    const j = tx(() => claim.get(now + 30000, now)) as { id: number; token: number };
    tx(() => fin.run(j.id, j.token));
  }
  const ms = performance.now() - t;
  db.close();
  return N / (ms / 1000);
}
function run(v: V): number {
  const db = new Database(fresh(`${os.tmpdir()}/verq-schema-cost-${v.name.replace(/ /g, "-")}.sqlite`));
  db.pragma("journal_mode = wal");
  db.pragma("synchronous = normal");
  db.exec(`create table events (position ${v.eventsPk}, stream_type text not null, stream_id text not null, version integer not null, type text not null, data text not null, at_ms integer not null, unique (stream_type, stream_id, version));
  create table jobs (id text primary key, payload text not null, state text not null, token integer not null, attempts integer not null, max_attempts integer not null, deadline integer not null, available_at integer not null, owner text, lease_until integer, reason text, dead_since integer, ordering_key text, lease_expiries integer not null, enqueued_at integer not null, enqueue_position integer not null, updated_at integer not null, version integer not null)${v.jobsSuffix};
  create index jobs_pending_due on jobs (available_at, enqueue_position) where state = 'pending';
  create index jobs_leased_expiry on jobs (lease_until) where state = 'leased';
  create index jobs_dead_since on jobs (dead_since) where state = 'dead';
  create index jobs_ordering_group on jobs (ordering_key, enqueue_position) where ordering_key is not null;`);
  const ev = db.prepare(
    "insert into events (stream_type, stream_id, version, type, data, at_ms) values ('job', ?, ?, ?, ?, ?) returning position",
  );
  const insJob = db.prepare(
    `insert into jobs values (?, ?, 'pending', 0, 0, 5, ?, ?, null, null, null, null, null, 0, ?, ?, ?, 1)`,
  );
  const sel = db.prepare(
    `select * from jobs j where j.state = 'pending' and j.available_at <= ? order by j.available_at, j.enqueue_position limit 8`,
  );
  const upd = db.prepare(
    `update jobs set state = ?, token = ?, owner = ?, lease_until = ?, updated_at = ?, version = ? where id = ? and version = ?`,
  );
  const byId = db.prepare(`select * from jobs where id = ?`);
  const tx = <T>(f: () => T): T => db.transaction(f).immediate();
  const t = performance.now();
  for (let i = 0; i < N; i++) {
    const now = Date.now();
    const id = `job-${String(i).padStart(9, "0")}`;
    tx(() => {
      const p = (ev.get(id, 1, "job.enqueued", JSON.stringify({ id, payload: { q: i } }), now) as { position: number }).position;
      insJob.run(id, '{"q":1}', now + 1e6, now, now, p, now);
    });
    tx(() => {
      const [j] = sel.all(now) as { id: string; version: number }[];
      ev.get(j!.id, 2, "job.claimed", '{"token":1}', now);
      upd.run("leased", 1, "w", now + 30000, now, 2, j!.id, 1);
    });
    tx(() => {
      const j = byId.get(id) as { version: number };
      ev.get(id, 3, "job.completed", '{"token":1}', now);
      upd.run("done", 1, null, null, now, 3, id, j.version);
    });
  }
  const ms = performance.now() - t;
  db.close();
  return N / (ms / 1000);
}
console.log("lifecycles/s, each step its own commit, WAL + synchronous=NORMAL, 3 rounds");
for (let r = 0; r < 3; r++) {
  console.log(
    [
      `raw minimal table: ${Math.round(runMinimal())}`,
      ...variants.map((v) => `verq's statements, ${v.name}: ${Math.round(run(v))}`),
    ].join(" | "),
  );
}
