import { JOB_RETENTION_ID, JOB_RETENTION_STREAM, JOB_STREAM, ManualClock, isVerqError, jobEvents } from "@verq/core";
import { ENGINES, engineAvailable } from "@verq/testing";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { JobQueue, checkStore, readAllEvents, type VerqStore } from "../src/index.ts";
import { appendEvents } from "../src/sql/events/appendEvents.ts";
import { freshStores } from "./helpers/fresh-store.ts";

const DAY = 86_400_000;

async function maxPosition(store: VerqStore): Promise<number> {
  const row = await store.db
    .selectFrom("events")
    .select((eb) => eb.fn.max("position").as("max"))
    .executeTakeFirst();
  return Number(row?.max ?? 0);
}

async function eventCount(store: VerqStore, streamType: string, id: string): Promise<number> {
  const rows = await store.db
    .selectFrom("events")
    .select("position")
    .where("stream_type", "=", streamType)
    .where("stream_id", "=", id)
    .execute();
  return rows.length;
}

/**
 * Retention on both engines: `prune` removes done (and, when asked, dead) jobs finished at or
 * before the cutoff with their streams, keeps an archive row per job and an audit event per
 * batch, never touches pending or leased jobs, refuses an enqueue of an archived id, never lets
 * the global position go backwards, and leaves a store `verq check` accepts.
 */
for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] JobQueue.prune`, () => {
    const stores = freshStores();

    async function setup() {
      const { store } = await stores.open(engine);
      const clock = new ManualClock(1_000_000);
      const queue = new JobQueue(store, { clock, defaultDeadlineMs: 365 * DAY });
      const run = async (id: string, outcome: "ok" | "permanent") => {
        await queue.enqueue({ id, payload: { id }, maxAttempts: 1 });
        const job = await queue.claim("w");
        if (job?.id !== id) throw new Error(`expected to claim ${id}`);
        expect(await queue.finish(id, job.token, outcome)).toBe(true);
      };
      return { store, clock, queue, run };
    }

    it("prunes done jobs finished at or before now - doneOlderThan, keeps younger, dead, pending and leased ones", async () => {
      const { store, clock, queue, run } = await setup();
      await run("old-done", "ok"); // finished at t0
      await run("old-dead", "permanent");
      await queue.enqueue({ id: "old-pending", payload: {}, availableAt: clock.now() + 100 * DAY });
      await queue.enqueue({ id: "old-leased", payload: {} });
      expect((await queue.claim("holder", { leaseMs: 1_000 }))?.id).toBe("old-leased");
      clock.advance(1);
      await run("young-done", "ok"); // finished at t0 + 1
      clock.advance(7 * DAY - 1); // now = t0 + 7d: old-done is exactly 7 days old, young-done one ms less

      const dry = await queue.prune({ doneOlderThan: 7 * DAY, dryRun: true });
      expect(dry).toMatchObject({ pruned: { done: 1, dead: 0 }, dryRun: true, batches: 0 });
      expect(await queue.get("old-done")).not.toBeNull();

      const before = await maxPosition(store);
      const result = await queue.prune({ doneOlderThan: 7 * DAY });
      expect(result).toMatchObject({ pruned: { done: 1, dead: 0 }, events: 3, dryRun: false, batches: 1 });
      expect(result.kept).toEqual({ pending: 1, leased: 1, done: 0, dead: 1 });
      expect(await queue.get("old-done")).toBeNull();
      expect(await eventCount(store, JOB_STREAM, "old-done")).toBe(0);
      for (const id of ["old-dead", "old-pending", "old-leased", "young-done"]) expect(await queue.get(id)).not.toBeNull();
      expect(await queue.archived("old-done")).toEqual({
        id: "old-done",
        state: "done",
        token: 1,
        reason: null,
        enqueuedAt: 1_000_000,
        finishedAt: 1_000_000,
        prunedAt: 1_000_000 + 7 * DAY,
      });
      expect(await queue.archived("young-done")).toBeNull();
      // The audit event is the newest event: the global position went forward, never back.
      const after = await maxPosition(store);
      expect(after).toBeGreaterThan(before);
      const audit = (await readAllEvents(store.db)).filter((e) => e.streamType === JOB_RETENTION_STREAM);
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ streamId: JOB_RETENTION_ID, position: after, type: "jobs.pruned" });
      expect(audit[0]?.data).toMatchObject({ ids: ["old-done"], deadCutoff: null });
      expect((await checkStore(store)).findings).toEqual([]);

      // One millisecond later young-done is old enough too.
      clock.advance(1);
      expect((await queue.prune({ doneOlderThan: 7 * DAY })).pruned).toEqual({ done: 1, dead: 0 });
      expect(await queue.get("young-done")).toBeNull();
    });

    it("prunes dead jobs only with deadOlderThan, at its boundary, and keeps their redrive audit rows", async () => {
      const { clock, queue, run, store } = await setup();
      await run("dead-1", "permanent");
      await queue.redrive("dead-1", { note: "OPS-1" });
      const again = await queue.claim("w");
      expect(await queue.finish("dead-1", again?.token ?? 0, "permanent")).toBe(true); // dead again at t0
      clock.advance(30 * DAY - 1);
      expect((await queue.prune({ doneOlderThan: 0 })).pruned).toEqual({ done: 0, dead: 0 });
      expect((await queue.prune({ doneOlderThan: 0, deadOlderThan: 30 * DAY })).pruned).toEqual({ done: 0, dead: 0 });
      clock.advance(1);
      expect((await queue.prune({ doneOlderThan: 0, deadOlderThan: 30 * DAY })).pruned).toEqual({ done: 0, dead: 1 });
      expect(await queue.archived("dead-1")).toMatchObject({ state: "dead", reason: "permanent", token: 2 });
      expect((await queue.stats()).redrives).toBe(1);
      expect((await checkStore(store)).findings).toEqual([]);
      const stats = await queue.stats();
      await store.rebuildProjections(); // the audit rows of a pruned job survive a rebuild
      expect(await queue.stats()).toEqual(stats);
      expect((await checkStore(store)).findings).toEqual([]);
    });

    it("refuses an enqueue of an archived id with VERQ_JOB_ARCHIVED, alone or in a batch, and writes nothing", async () => {
      const { clock, queue, run, store } = await setup();
      await run("a", "ok");
      clock.advance(DAY);
      await queue.prune({ doneOlderThan: DAY });
      const positions = await maxPosition(store);
      for (const attempt of [
        () => queue.enqueue({ id: "a", payload: { id: "a" } }),
        () =>
          queue.enqueueMany([
            { id: "fresh", payload: {} },
            { id: "a", payload: {} },
          ]),
      ]) {
        const error: unknown = await attempt().catch((e: unknown) => e);
        expect(isVerqError(error, "VERQ_JOB_ARCHIVED")).toBe(true);
      }
      expect(await maxPosition(store)).toBe(positions);
      expect(await queue.get("fresh")).toBeNull();
      expect((await queue.enqueue({ id: "b", payload: {} })).created).toBe(true);
    });

    it("works in bounded batches, each its own transaction, and a rerun continues", async () => {
      const { clock, queue, run, store } = await setup();
      for (let i = 0; i < 7; i++) await run(`j-${i}`, "ok");
      clock.advance(DAY);
      const result = await queue.prune({ doneOlderThan: DAY, batchSize: 3 });
      expect(result).toMatchObject({ pruned: { done: 7, dead: 0 }, batches: 3 });
      const audit = (await readAllEvents(store.db)).filter((e) => e.streamType === JOB_RETENTION_STREAM);
      expect(audit.map((e) => (e.data as { ids: string[] }).ids.length)).toEqual([3, 3, 1]);
      expect((await queue.prune({ doneOlderThan: DAY })).pruned).toEqual({ done: 0, dead: 0 });
      expect((await checkStore(store)).findings).toEqual([]);
    });

    it("rejects bad options with VERQ_INVALID_ARGUMENT before anything is read", async () => {
      const { queue } = await setup();
      for (const options of [
        { doneOlderThan: -1 },
        { doneOlderThan: 1.5 },
        { doneOlderThan: 0, deadOlderThan: -1 },
        { doneOlderThan: 0, batchSize: 0 },
        { doneOlderThan: 0, batchSize: 10_001 },
      ]) {
        const error: unknown = await queue.prune(options).catch((e: unknown) => e);
        expect(isVerqError(error, "VERQ_INVALID_ARGUMENT"), JSON.stringify(options)).toBe(true);
      }
    });

    it("verq check reports an archived job that still has events, and a prune audit that left its events", async () => {
      const { queue, run, store } = await setup();
      await run("x", "ok");
      await store.db
        .insertInto("job_archive")
        .values({ id: "x", state: "done", token: 1, reason: null, enqueued_at: 0, finished_at: 0, pruned_at: 0 })
        .execute();
      await store.transaction((trx) =>
        appendEvents(trx, store.dialect, JOB_RETENTION_STREAM, JOB_RETENTION_ID, 0, [
          jobEvents.jobsPruned({ ids: ["x", "never-archived"], doneCutoff: 0, deadCutoff: null, at: 0 }),
        ]),
      );
      const codes = (await checkStore(store)).findings.map((f) => `${f.code} ${f.stream}`).sort();
      expect(codes).toEqual(["ARCHIVE_MISMATCH job/never-archived", "ARCHIVE_MISMATCH job/x", "PURGE_INCOMPLETE job/x"]);
      expect(await queue.get("x")).not.toBeNull();
    });

    it("the database refuses to delete the events of a job that is not archived", async () => {
      const { queue, run, store } = await setup();
      await run("kept", "ok");
      await expect(sql`delete from events where stream_type = 'job' and stream_id = 'kept'`.execute(store.db)).rejects.toThrow(
        /VERQ_APPEND_ONLY/,
      );
      expect(await queue.get("kept")).not.toBeNull();
    });
  });
}
