import Database from "better-sqlite3";
import { ManualClock, classifyCoreCall } from "@verq/core";
import { GuidLedger, JobQueue, type VerqStore } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";

const RETENTION = { retentionMs: 10_000, resendWindowMs: 1_000 };

let database: TestDatabase | undefined;
let store: VerqStore | undefined;
afterEach(async () => {
  await store?.close();
  await database?.dispose();
  store = undefined;
  database = undefined;
});

async function maxPosition(s: VerqStore): Promise<number> {
  const { rows } = await sql<{ max: number | null }>`select max(position) as max from events`.execute(s.db);
  return Number(rows[0]?.max ?? 0);
}

/** `count` GUIDs received, sent and answered: DONE entries whose events are the newest of the log. */
async function doneEntries(ledger: GuidLedger, clock: ManualClock, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const guid = `P-${i}`;
    await ledger.receive({ guid, request: JSON.stringify({ guid, amount: 1 }), fingerprint: `f${i}`, maxAttempts: 3 });
    await ledger.send(guid);
    const answer = { kind: "answered", status: 200, body: JSON.stringify({ guid, code: "0000" }) } as const;
    await ledger.record(guid, 1, classifyCoreCall(guid, answer));
    clock.advance(1);
  }
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    it("a position is never handed out twice: after a purge of the newest streams, the next event still comes after every event seen", async () => {
      database = await createTestDatabase(engine);
      store = await database.open();
      const clock = new ManualClock();
      const queue = new JobQueue(store, { clock });
      await queue.enqueue({ id: "before", payload: null });
      const ledger = new GuidLedger(store, { clock });
      await doneEntries(ledger, clock, 3);
      const seen = await maxPosition(store);
      clock.advance(RETENTION.retentionMs);
      expect((await ledger.purge(RETENTION)).purged).toBe(3);
      // The purge's audit event comes after everything that was seen, and so does the next append.
      const [audit] = await ledger.purges();
      expect(audit?.position).toBeGreaterThan(seen);
      await queue.enqueue({ id: "after", payload: null });
      const [enqueued] = await queue.history("after");
      expect(enqueued?.position).toBeGreaterThan(audit?.position ?? Number.POSITIVE_INFINITY);
    });
  });
}

describe("[sqlite] lean positions (migration 005)", () => {
  it("the newest event cannot be deleted, whatever its stream: VERQ_APPEND_ONLY, nothing changes", async () => {
    database = await createTestDatabase("sqlite");
    store = await database.open();
    const clock = new ManualClock();
    await doneEntries(new GuidLedger(store, { clock }), clock, 1);
    const newest = await maxPosition(store);
    await expect(sql`delete from events where position = ${newest}`.execute(store.db)).rejects.toThrow(/VERQ_APPEND_ONLY/);
    expect(await maxPosition(store)).toBe(newest);
    // An older event of a GUID stream is still the purge's to delete.
    await sql`delete from events where position = ${newest - 1}`.execute(store.db);
  });

  it("a store made before it keeps every event and position, loses AUTOINCREMENT, and appends after its newest event", async () => {
    database = await createTestDatabase("sqlite");
    const path = database.db;
    const clock = new ManualClock();
    store = await database.open();
    await new JobQueue(store, { clock }).enqueueMany([1, 2, 3].map((i) => ({ id: `old-${i}`, payload: { i } })));
    await store.close();
    // Put the file back as migration 004 left it: the AUTOINCREMENT table, with a gap at the
    // end (its newest events were deleted), and 005 not yet applied.
    const raw = new Database(path);
    raw.exec(`create table events_old (position integer primary key autoincrement, stream_type text not null,
        stream_id text not null, version integer not null, type text not null, data text not null, at_ms bigint not null,
        constraint events_stream_version_unique unique (stream_type, stream_id, version));
      insert into events_old select position, stream_type, stream_id, version, type, data, at_ms from events;
      drop table events;
      drop table stream_states;
      alter table events_old rename to events;
      insert into events (position, stream_type, stream_id, version, type, data, at_ms) values (100, 'guid', 'gone', 1, 'guid.received', '{}', 0);
      delete from events where position = 100;
      delete from verq_migrations where name in ('005-lean-positions', '013-declared-streams');`);
    const before = raw.prepare("select * from events order by position").all();
    raw.close();

    store = await database.open();
    const after = await sql`select * from events order by position`.execute(store.db).then((r) => r.rows);
    // Every event as it was, and a marker at the old counter, so that 100, seen by a reader before it was deleted, is never handed out again.
    expect(after.slice(0, before.length)).toEqual(before.map((row) => ({ ...(row as object), schema_version: 1 })));
    expect(after.slice(before.length)).toMatchObject([{ position: 100, stream_type: "store", type: "store.positionsKept" }]);
    const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where name = 'events'`.execute(store.db);
    expect(rows[0]?.sql).not.toMatch(/autoincrement/i);
    // The append-only triggers came back with the rebuilt table.
    await expect(sql`update events set data = '{}'`.execute(store.db)).rejects.toThrow(/VERQ_APPEND_ONLY/);
    await expect(sql`delete from events where stream_id = 'old-1'`.execute(store.db)).rejects.toThrow(/VERQ_APPEND_ONLY/);
    await new JobQueue(store, { clock }).enqueue({ id: "new", payload: null });
    const { rows: appended } = await sql<{ position: number }>`select position from events where stream_id = 'new'`.execute(
      store.db,
    );
    expect(Number(appended[0]?.position)).toBe(101);
    // Rebuilds fold only their own streams: the marker changes no projection.
    const jobs = await sql`select * from jobs order by id`.execute(store.db).then((r) => r.rows);
    await store.rebuildProjections();
    expect(await sql`select * from jobs order by id`.execute(store.db).then((r) => r.rows)).toEqual(jobs);
  });
});
