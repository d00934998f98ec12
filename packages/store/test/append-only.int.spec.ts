import { ManualClock } from "@verq/core";
import type { VerqStore } from "@verq/store";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ENGINES, createTestDatabase, engineAvailable, type Engine, type TestDatabase } from "@verq/testing";
import { tableRows } from "./helpers/snapshot.ts";
import { buildEveryState, deterministicQueue } from "./helpers/workload.ts";

let database: TestDatabase;
let store: VerqStore;

/** Every table, raw: a failed attempt must leave all of it as it was. */
async function everything(): Promise<Record<string, unknown[]>> {
  return {
    events: await tableRows(store, "events"),
    jobs: await tableRows(store, "jobs"),
    redrives: await tableRows(store, "redrives"),
    counters: await tableRows(store, "counters"),
  };
}

/** Before each test of the calling describe, a fresh store on `engine` with a job in every state; after it, none. */
function storeWithEveryState(engine: Engine): void {
  beforeEach(async () => {
    database = await createTestDatabase(engine, "queue.sqlite");
    store = await database.open();
    const clock = new ManualClock();
    await buildEveryState(deterministicQueue(store, clock), clock);
  });
  afterEach(async () => {
    await store.close();
    await database.dispose();
  });
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    storeWithEveryState(engine);

    describe("the event log is append-only (docs/architecture.md: events are append-only)", () => {
      it("an UPDATE of an event row fails with VERQ_APPEND_ONLY and changes nothing", async () => {
        const before = await everything();
        await expect(sql`update events set data = '{"quantity": 700}' where position = 1`.execute(store.db)).rejects.toThrow(
          /VERQ_APPEND_ONLY/,
        );
        await expect(sql`update events set at_ms = at_ms + 1`.execute(store.db)).rejects.toThrow(/VERQ_APPEND_ONLY/);
        await expect(
          store.db.updateTable("events").set({ type: "job.completed" }).where("stream_id", "=", "done-1").execute(),
        ).rejects.toThrow(/VERQ_APPEND_ONLY/);
        // An upsert that would rewrite a stored event is an UPDATE too.
        await expect(
          sql`insert into events (stream_type, stream_id, version, type, data, at_ms) values ('job', 'done-1', 1, 'job.enqueued', '{}', 1)
            on conflict (stream_type, stream_id, version) do update set data = excluded.data`.execute(store.db),
        ).rejects.toThrow(/VERQ_APPEND_ONLY/);
        expect(await everything()).toEqual(before);
      });

      it("a DELETE of a job event fails with VERQ_APPEND_ONLY and changes nothing", async () => {
        const before = await everything();
        await expect(sql`delete from events where stream_id = 'dead-permanent'`.execute(store.db)).rejects.toThrow(
          /VERQ_APPEND_ONLY/,
        );
        await expect(
          sql`delete from events where position = (select max(position) from events)`.execute(store.db),
        ).rejects.toThrow(/VERQ_APPEND_ONLY/);
        await expect(store.db.deleteFrom("events").execute()).rejects.toThrow(/VERQ_APPEND_ONLY/);
        expect(await everything()).toEqual(before);
      });

      it("a failed UPDATE inside a store transaction rolls back the transaction's other writes too", async () => {
        const before = await everything();
        await expect(
          store.transaction(async (trx) => {
            await sql`update jobs set state = 'done', reason = null, owner = null, lease_until = null where id = 'dead-permanent'`.execute(
              trx,
            );
            await sql`insert into counters (name, value) values ('tampered', 1)`.execute(trx);
            await sql`update events set type = 'job.completed' where stream_id = 'dead-permanent' and type = 'job.died'`.execute(
              trx,
            );
          }),
        ).rejects.toThrow(/VERQ_APPEND_ONLY/);
        expect(await everything()).toEqual(before);
      });

      it("a second event with the same (stream_type, stream_id, version) fails as a unique violation, the arbiter of races", async () => {
        const before = await everything();
        const failure = (work: Promise<unknown>): Promise<unknown> =>
          work.then(
            () => null,
            (e: unknown) => e,
          );
        const error = await failure(
          sql`insert into events (stream_type, stream_id, version, type, data, at_ms)
            values ('job', 'leased-taken-over', 2, 'job.claimed', '{"token": 1, "owner": "intruder", "leaseUntil": 9, "at": 1}', 1)`.execute(
            store.db,
          ),
        );
        expect(error).toBeInstanceOf(Error);
        expect(store.dialect.errors.isUniqueViolation(error)).toBe(true);
        expect(store.dialect.errors.isBusy(error)).toBe(false);
        // Through Kysely's builder, and for the first version (the enqueue race), the same.
        const first = await failure(
          store.db
            .insertInto("events")
            .values({ stream_type: "job", stream_id: "pending-new", version: 1, type: "job.enqueued", data: "{}", at_ms: 1 })
            .execute(),
        );
        expect(store.dialect.errors.isUniqueViolation(first)).toBe(true);
        expect(await everything()).toEqual(before);
      });
    });

    describe("append-only guards hold for a store reopened", () => {
      it("the triggers are part of the database, not of the connection that created them", async () => {
        await store.close();
        store = await database.open();
        await expect(sql`update events set data = '{}'`.execute(store.db)).rejects.toThrow(/VERQ_APPEND_ONLY/);
        await expect(sql`delete from events`.execute(store.db)).rejects.toThrow(/VERQ_APPEND_ONLY/);
      });
    });
  });
}

describe("SQLite's own ways to rewrite a row", () => {
  storeWithEveryState("sqlite");

  // Regression: SQLite's REPLACE conflict resolution deletes the conflicting row without firing
  // DELETE triggers unless `PRAGMA recursive_triggers = on`; without it, `INSERT OR REPLACE` /
  // `REPLACE INTO` rewrote a job's enqueued event (and its payload).
  it("INSERT OR REPLACE and REPLACE INTO cannot rewrite a stored job event", async () => {
    const before = await everything();
    await expect(
      sql`insert or replace into events (stream_type, stream_id, version, type, data, at_ms)
        values ('job', 'done-1', 1, 'job.enqueued', '{"id": "done-1", "payload": {"quantity": 700}}', 1)`.execute(store.db),
    ).rejects.toThrow(/VERQ_APPEND_ONLY/);
    await expect(
      sql`replace into events (position, stream_type, stream_id, version, type, data, at_ms)
        values (1, 'job', 'done-1', 99, 'job.enqueued', '{}', 1)`.execute(store.db),
    ).rejects.toThrow(/VERQ_APPEND_ONLY/);
    expect(await everything()).toEqual(before);
  });
});
