import { ManualClock, type VerqErrorCode } from "@verq/core";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobQueue, checkStore, type VerqStore } from "../src/index.ts";
import { CANCELLED_REASON } from "../src/migrations/007-cancellation.ts";
import { replacePostgresColumnCheck } from "../src/migrations/postgres/replace-column-check.ts";
import { replaceSqliteColumnCheck } from "../src/migrations/sqlite/replace-column-check.ts";
import { expectRefusedUnchanged, snapshotTables } from "./helpers/refused-unchanged.ts";

/** Each engine's way of replacing a column check, as its migration 007 uses it. */
const replaceColumnCheck = { sqlite: replaceSqliteColumnCheck, postgres: replacePostgresColumnCheck };

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] JobQueue.cancel`, () => {
    const T0 = 1_700_000_000_000;
    let database: TestDatabase;
    let store: VerqStore;
    let clock: ManualClock;
    let queue: JobQueue;

    beforeEach(async () => {
      database = await createTestDatabase(engine);
      store = await database.open();
      clock = new ManualClock(T0);
      queue = new JobQueue(store, { clock, defaultLeaseMs: 1_000, redriveLimit: { max: 100, windowMs: 60_000 } });
    });
    afterEach(async () => {
      await store.close();
      await database.dispose();
    });

    const JOB_TABLES = ["jobs", "events", "redrives"] as const;
    const snapshotAll = () => snapshotTables(store, JOB_TABLES);
    const expectRefusedWith = (call: () => Promise<unknown>, code: VerqErrorCode) =>
      expectRefusedUnchanged(store, call, code, JOB_TABLES);

    it("a pending job is cancelled with its note and never runs: no claim hands it out", async () => {
      await queue.enqueue({ id: "p", payload: { n: 1 } });
      clock.advance(5);
      expect(await queue.cancel("p", { note: "OPS-1" })).toEqual({
        cancelled: true,
        jobId: "p",
        state: "pending",
        previousToken: 0,
        note: "OPS-1",
        at: T0 + 5,
      });
      expect(await queue.get("p")).toMatchObject({ state: "dead", reason: "cancelled", deadSince: T0 + 5, token: 0 });
      clock.advance(60_000);
      expect(await queue.claim("w1")).toBeNull();
      const history = await queue.history("p");
      expect(history.map((e) => e.type)).toEqual(["job.enqueued", "job.cancelled"]);
      expect(history[1]?.data).toEqual({ previousToken: 0, note: "OPS-1", at: T0 + 5 });
    });

    it("a leased job's holder gets false from heartbeat and finish; the refused finish counts as stale", async () => {
      await queue.enqueue({ id: "l", payload: { n: 1 } });
      const job = await queue.claim("w1");
      expect(job?.token).toBe(1);
      expect(await queue.heartbeat("l", 1, 1_000)).toBe(true);
      expect(await queue.cancel("l", { note: "INC#42" })).toMatchObject({ cancelled: true, state: "leased", previousToken: 1 });
      expect(await queue.heartbeat("l", 1, 1_000)).toBe(false);
      expect(await queue.finish("l", 1, "ok")).toBe(false);
      expect(await queue.finishMany([{ id: "l", token: 1, outcome: "retry" }])).toEqual([false]);
      expect(await queue.get("l")).toMatchObject({ state: "dead", reason: "cancelled", token: 1, owner: null, leaseUntil: null });
      const stats = await queue.stats();
      expect(stats.staleFinishesRefused).toBe(2);
      expect(stats.dead.byReason.cancelled).toEqual({ count: 1, ratio: 1 });
      expect((await queue.history("l")).map((e) => e.type)).toEqual([
        "job.enqueued",
        "job.claimed",
        "job.leaseExtended",
        "job.cancelled",
      ]);
      // The lease's end no longer hands the job to anyone.
      clock.advance(10_000);
      expect(await queue.claim("w2")).toBeNull();
    });

    it("done and dead jobs are refused as not-cancellable and nothing changes", async () => {
      await queue.enqueue({ id: "d", payload: {} });
      await queue.finish("d", (await queue.claim("w1"))!.token, "ok");
      await queue.enqueue({ id: "x", payload: {} });
      await queue.finish("x", (await queue.claim("w1"))!.token, "permanent");
      await queue.enqueue({ id: "c", payload: {} });
      await queue.cancel("c", { note: "OPS-1" });
      const before = await snapshotAll();
      expect(await queue.cancel("d", { note: "OPS-2" })).toEqual({
        cancelled: false,
        jobId: "d",
        refusal: "not-cancellable",
        state: "done",
      });
      expect(await queue.cancel("x", { note: "OPS-2" })).toMatchObject({ cancelled: false, state: "dead" });
      expect(await queue.cancel("c", { note: "OPS-2" })).toMatchObject({ cancelled: false, state: "dead" });
      expect(await snapshotAll()).toEqual(before);
    });

    it("an unknown id, a note that is not a ticket id and a bad id are coded errors that change nothing", async () => {
      await queue.enqueue({ id: "p", payload: {} });
      await expectRefusedWith(() => queue.cancel("nope", { note: "OPS-1" }), "VERQ_UNKNOWN_JOB");
      for (const note of ["", "fixed it", "a".repeat(65), "OPS-1\nDROP"]) {
        await expectRefusedWith(() => queue.cancel("p", { note }), "VERQ_INVALID_NOTE");
      }
      await expectRefusedWith(() => queue.cancel("p", { note: 42 as unknown as string }), "VERQ_INVALID_NOTE");
      // A caller without types that passes no options at all gets a coded refusal, not a TypeError
      // (a redrive of the pending job is the machine's VERQ_NOT_DEAD before its note is looked at).
      await expectRefusedWith(() => queue.cancel("p", undefined as never), "VERQ_INVALID_NOTE");
      await expectRefusedWith(() => queue.redrive("p", undefined as never), "VERQ_NOT_DEAD");
      await expectRefusedWith(() => queue.cancel("", { note: "OPS-1" }), "VERQ_INVALID_ID");
      expect(await queue.cancel("p", { note: "a".repeat(64) })).toMatchObject({ cancelled: true });
    });

    it("a cancelled job is redriven by id (token kept, the old holder stays stale); a bulk redrive passes it over unless asked by reason", async () => {
      await queue.enqueue({ id: "c1", payload: {} });
      await queue.claim("w1");
      await queue.cancel("c1", { note: "OPS-1" });
      await queue.enqueue({ id: "c2", payload: {} });
      await queue.cancel("c2", { note: "OPS-1" });
      await queue.enqueue({ id: "p1", payload: {} });
      await queue.finish("p1", (await queue.claim("w1"))!.token, "permanent");

      expect(await queue.countDead({})).toBe(3);
      expect(await queue.countDead({ exceptReasons: ["cancelled"] })).toBe(1);
      expect((await queue.deadPage({ exceptReasons: ["cancelled"] }, null, 10)).map((j) => j.id)).toEqual(["p1"]);
      expect((await queue.deadPage({ reason: "cancelled" }, null, 10)).map((j) => j.id)).toEqual(["c1", "c2"]);

      const swept = await queue.redriveDead({ note: "INC-9" });
      expect(swept.redriven.map((r) => r.jobId)).toEqual(["p1"]);
      expect(await queue.get("c1")).toMatchObject({ state: "dead", reason: "cancelled" });

      expect((await queue.redriveDead({ note: "INC-9", reason: "cancelled", max: 1 })).redriven.map((r) => r.jobId)).toEqual([
        "c1",
      ]);
      expect(await queue.redrive("c2", { note: "INC-10" })).toMatchObject({ jobId: "c2", previousToken: 0 });
      expect(await queue.get("c1")).toMatchObject({ state: "pending", token: 1, reason: null });
      expect(await queue.finish("c1", 1, "ok")).toBe(false);
      const again = await queue.claim("w2");
      expect(again).toMatchObject({ token: 2 });
      expect((await checkStore(store)).findings).toEqual([]);
    });

    it("migration 007 keeps every row, index and constraint of an existing jobs table and admits only the new reason", async () => {
      await queue.enqueue({ id: "a", payload: { n: 1 } });
      await queue.finish("a", (await queue.claim("w1"))!.token, "permanent");
      await queue.enqueue({ id: "b", payload: { n: 2 }, orderingKey: "k" });
      // Back to the schema before 007, as a store made by an older release has it.
      await replaceColumnCheck[engine](store.db, { ...CANCELLED_REASON, from: CANCELLED_REASON.to, to: CANCELLED_REASON.from });
      await sql`delete from verq_migrations where name = '007-cancellation'`.execute(store.db);
      const before = await snapshotAll();
      await expect(
        sql`update jobs set reason = 'cancelled' where id = 'a'`.execute(store.db),
        "the old check refuses the new reason",
      ).rejects.toThrow();
      await store.close();

      store = await database.open();
      queue = new JobQueue(store, { clock, defaultLeaseMs: 1_000 });
      expect(await snapshotAll()).toEqual(before);
      expect(await queue.cancel("b", { note: "OPS-1" })).toMatchObject({ cancelled: true });
      await expect(sql`update jobs set reason = 'bogus' where id = 'a'`.execute(store.db)).rejects.toThrow();
      await expect(
        sql`update jobs set reason = null where id = 'a'`.execute(store.db),
        "dead still has a reason",
      ).rejects.toThrow();
      // The claim's partial indexes are there again.
      const indexes =
        store.dialect.name === "sqlite"
          ? await sql<{
              name: string;
            }>`select name from sqlite_master where type = 'index' and tbl_name = 'jobs' and sql is not null order by name`.execute(
              store.db,
            )
          : await sql<{
              name: string;
            }>`select indexname as name from pg_indexes where tablename = 'jobs' and schemaname = current_schema() and indexname <> 'jobs_pkey' order by indexname`.execute(
              store.db,
            );
      expect(indexes.rows.map((r) => r.name)).toEqual(
        expect.arrayContaining(["jobs_dead_since", "jobs_leased", "jobs_ordering_group", "jobs_pending_due"]),
      );
      expect((await checkStore(store)).findings).toEqual([]);
    });
  });
}
