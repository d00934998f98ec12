import { ManualClock, QUEUE_STREAM, isVerqError } from "@verq/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobQueue, JobWorker, type VerqStore } from "../src/index.ts";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";

async function codeOf(work: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await work();
  } catch (error) {
    return isVerqError(error) ? error.code : `not a VerqError: ${String(error)}`;
  }
  return undefined;
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`named queues, priorities, queue limits [${engine}]`, () => {
    const T0 = 1_700_000_000_000;
    let database: TestDatabase;
    let store: VerqStore;
    let clock: ManualClock;
    let queue: JobQueue;

    beforeEach(async () => {
      database = await createTestDatabase(engine);
      store = await database.open();
      clock = new ManualClock(T0);
      queue = new JobQueue(store, { clock, defaultLeaseMs: 1_000 });
    });
    afterEach(async () => {
      await store.close();
      await database.dispose();
    });

    const everything = async () => ({
      jobs: await store.db.selectFrom("jobs").selectAll().orderBy("id").execute(),
      events: await store.db.selectFrom("events").selectAll().orderBy("position").execute(),
      queues: await store.db.selectFrom("queues").selectAll().orderBy("name").execute(),
    });

    it("an enqueue keeps its queue and priority (default, 0 unless told), in the event and the row", async () => {
      await queue.enqueue({ id: "a", payload: 1 });
      await queue.enqueue({ id: "b", payload: 2, queue: "mail", priority: -1000 });
      expect(await queue.get("a")).toMatchObject({ queue: "default", priority: 0 });
      expect(await queue.get("b")).toMatchObject({ queue: "mail", priority: -1000 });
      const [event] = await queue.history("b");
      expect(event?.data).toMatchObject({ queue: "mail", priority: -1000 });
    });

    it("bad queue names and priorities are VERQ_INVALID_ARGUMENT and write nothing; another queue or priority for an id is a conflict", async () => {
      await queue.enqueue({ id: "kept", payload: 1, queue: "mail", priority: 3 });
      const before = await everything();
      for (const input of [
        { queue: "" },
        { queue: "a\u0007b" },
        { queue: "x".repeat(257) },
        { priority: 1001 },
        { priority: -1001 },
        { priority: 1.5 },
      ]) {
        expect(
          await codeOf(() =>
            queue.enqueueMany([
              { id: "new", payload: 1 },
              { id: "bad", payload: 1, ...input },
            ]),
          ),
        ).toBe("VERQ_INVALID_ARGUMENT");
      }
      expect(await codeOf(() => queue.enqueue({ id: "kept", payload: 1, queue: "other", priority: 3 }))).toBe(
        "VERQ_ENQUEUE_CONFLICT",
      );
      expect(await codeOf(() => queue.enqueue({ id: "kept", payload: 1, queue: "mail", priority: 2 }))).toBe(
        "VERQ_ENQUEUE_CONFLICT",
      );
      expect(await everything()).toEqual(before);
      expect((await queue.enqueue({ id: "kept", payload: 1, queue: "mail", priority: 3 })).created).toBe(false);
      expect(await queue.enqueue({ id: "edge", payload: 1, priority: 1000, queue: "x".repeat(256) })).toMatchObject({
        created: true,
      });
    });

    it("a claim takes only the queues it names (default unless told): higher priority first, then enqueue order, across them", async () => {
      await queue.enqueueMany([
        { id: "d-low", payload: 1, priority: -5 },
        { id: "m-0", payload: 1, queue: "mail" },
        { id: "s-9", payload: 1, queue: "sms", priority: 9 },
        { id: "m-9", payload: 1, queue: "mail", priority: 9 },
        { id: "d-0", payload: 1 },
        { id: "x-99", payload: 1, queue: "other", priority: 99 },
      ]);
      expect((await queue.claimMany("w", 10)).map((j) => j.id)).toEqual(["d-0", "d-low"]);
      expect((await queue.claimMany("w", 10, { queues: ["mail", "sms"] })).map((j) => j.id)).toEqual(["s-9", "m-9", "m-0"]);
      expect(await queue.claim("w", { queues: ["nothing"] })).toBeNull();
      // A due job beats a higher priority that is not due yet.
      await queue.enqueue({ id: "later", payload: 1, queue: "q", priority: 1000, availableAt: T0 + 10 });
      await queue.enqueue({ id: "now", payload: 1, queue: "q", priority: -1000 });
      expect((await queue.claim("w", { queues: ["q"] }))?.id).toBe("now");
      clock.advance(10);
      expect((await queue.claim("w", { queues: ["q"] }))?.id).toBe("later");
      for (const queues of [[], ["ok", ""], "default", Array.from({ length: 101 }, (_, i) => `q${i}`)]) {
        expect(await codeOf(() => queue.claim("w", { queues: queues as string[] }))).toBe("VERQ_INVALID_ARGUMENT");
      }
    });

    it("a limited queue: leases up to maxLeased, counting the batch's own grants; a finish frees a slot", async () => {
      await queue.enqueueMany(Array.from({ length: 6 }, (_, i) => ({ id: `l-${i}`, payload: i, queue: "limited" })));
      await queue.enqueueMany(Array.from({ length: 3 }, (_, i) => ({ id: `o-${i}`, payload: i, queue: "other", priority: -1 })));
      expect(await queue.setQueueLimit("limited", { maxLeased: 2 })).toMatchObject({
        changed: true,
        queue: { name: "limited", state: "limited", maxLeased: 2, version: 1 },
      });
      const first = await queue.claimMany("w", 10, { queues: ["limited", "other"] });
      expect(first.map((j) => j.id)).toEqual(["l-0", "l-1", "o-0", "o-1", "o-2"]);
      expect(await queue.claim("w", { queues: ["limited"] })).toBeNull();
      // One below the limit: exactly one more.
      expect(await queue.finish("l-0", 1, "ok")).toBe(true);
      expect((await queue.claimMany("w", 10, { queues: ["limited"] })).map((j) => j.id)).toEqual(["l-2"]);
      // Raised: the new slots at once; lowered under the count: nothing is taken back, nothing more is leased.
      await queue.setQueueLimit("limited", { maxLeased: 3 });
      expect((await queue.claimMany("w", 10, { queues: ["limited"] })).map((j) => j.id)).toEqual(["l-3"]);
      await queue.setQueueLimit("limited", { maxLeased: 1 });
      expect(await queue.claim("w", { queues: ["limited"] })).toBeNull();
      expect((await queue.stats({ queue: "limited" })).queues).toEqual({
        limited: { byState: { pending: 2, leased: 3, done: 1, dead: 0 }, leased: 3, maxLeased: 1 },
      });
      // Removed: everything due goes.
      await queue.setQueueLimit("limited", { maxLeased: null });
      expect((await queue.claimMany("w", 10, { queues: ["limited"] })).map((j) => j.id)).toEqual(["l-4", "l-5"]);
    });

    it("a full queue still hands over an expired lease (its count does not change)", async () => {
      await queue.enqueueMany([
        { id: "a", payload: 1, queue: "q" },
        { id: "b", payload: 2, queue: "q" },
      ]);
      await queue.setQueueLimit("q", { maxLeased: 1 });
      expect((await queue.claim("w1", { queues: ["q"] }))?.id).toBe("a");
      clock.advance(1_000);
      const again = await queue.claimMany("w2", 5, { queues: ["q"] });
      expect(again.map((j) => [j.id, j.token, j.owner])).toEqual([["a", 2, "w2"]]);
    });

    it("a spent lease a claim quarantines frees its full queue's slot before the claim picks: that queue's higher priority wins", async () => {
      await queue.enqueue({ id: "spent", payload: 1, queue: "q", maxAttempts: 1 });
      expect((await queue.claim("w1", { queues: ["q"] }))?.id).toBe("spent");
      await queue.setQueueLimit("q", { maxLeased: 1 });
      await queue.enqueueMany([
        { id: "low", payload: 2, queue: "other", priority: -1 },
        { id: "high", payload: 3, queue: "q", priority: 2 },
      ]);
      clock.advance(1_000);
      // "spent" (q's only lease, its one attempt used) goes dead, and "high" outranks "low".
      expect((await queue.claim("w2", { queues: ["other", "q"] }))?.id).toBe("high");
      expect(await queue.get("spent")).toMatchObject({ state: "dead", reason: "exhausted" });
      expect(await queue.get("low")).toMatchObject({ state: "pending" });
    });

    it("setQueueLimit: each change one queue.limitSet; the same limit again changes nothing; bad input writes nothing", async () => {
      expect((await queue.setQueueLimit("q", { maxLeased: null })).changed).toBe(false);
      await queue.setQueueLimit("q", { maxLeased: 5 });
      clock.advance(1);
      expect(await queue.setQueueLimit("q", { maxLeased: 5 })).toMatchObject({
        changed: false,
        queue: { maxLeased: 5, version: 1 },
      });
      await queue.setQueueLimit("q", { maxLeased: 1_000_000 });
      const before = await everything();
      for (const [name, maxLeased] of [
        ["q", 0],
        ["q", 1_000_001],
        ["q", 2.5],
        ["", 3],
        ["q", undefined],
      ] as const) {
        expect(await codeOf(() => queue.setQueueLimit(name, { maxLeased: maxLeased as number }))).toBe("VERQ_INVALID_ARGUMENT");
      }
      expect(await everything()).toEqual(before);
      const stream = before.events.filter((e) => e.stream_type === QUEUE_STREAM);
      expect(stream.map((e) => [e.stream_id, Number(e.version), e.type, JSON.parse(e.data) as unknown])).toEqual([
        ["q", 1, "queue.limitSet", { maxLeased: 5, at: T0 }],
        ["q", 2, "queue.limitSet", { maxLeased: 1_000_000, at: T0 + 1 }],
      ]);
      expect(before.queues.map((q) => [q.name, Number(q.max_leased), Number(q.version)])).toEqual([["q", 1_000_000, 2]]);
      expect(await queue.queueSettings("q")).toMatchObject({ maxLeased: 1_000_000, version: 2 });
      expect(await queue.queueSettings("never")).toEqual({
        name: "never",
        state: "unlimited",
        maxLeased: null,
        updatedAt: 0,
        version: 0,
      });
    });

    it("stats: a queues object keyed by name, with every state, leased and the limit; the overall figures unchanged", async () => {
      await queue.enqueueMany([
        { id: "a", payload: 1 },
        { id: "b", payload: 1, queue: "mail" },
        { id: "c", payload: 1, queue: "mail" },
      ]);
      await queue.setQueueLimit("idle", { maxLeased: 4 });
      await queue.claim("w", { queues: ["mail"] });
      const stats = await queue.stats();
      expect(stats.total).toBe(3);
      expect(stats.byState).toEqual({ pending: 2, leased: 1, done: 0, dead: 0 });
      expect(stats.queues).toEqual({
        default: { byState: { pending: 1, leased: 0, done: 0, dead: 0 }, leased: 0, maxLeased: null },
        idle: { byState: { pending: 0, leased: 0, done: 0, dead: 0 }, leased: 0, maxLeased: 4 },
        mail: { byState: { pending: 1, leased: 1, done: 0, dead: 0 }, leased: 1, maxLeased: null },
      });
      expect(Object.keys((await queue.stats({ queue: "mail" })).queues)).toEqual(["mail"]);
      expect((await queue.stats({ queue: "none" })).queues).toEqual({
        none: { byState: { pending: 0, leased: 0, done: 0, dead: 0 }, leased: 0, maxLeased: null },
      });
    });

    it("a worker claims from the queues it is given, within their limits", async () => {
      await queue.enqueueMany(Array.from({ length: 8 }, (_, i) => ({ id: `m-${i}`, payload: i, queue: "mail" })));
      await queue.enqueue({ id: "d", payload: 1 });
      await queue.setQueueLimit("mail", { maxLeased: 2 });
      let inFlight = 0;
      let most = 0;
      const worker = new JobWorker(queue, {
        owner: "w",
        queues: ["mail"],
        concurrency: 4,
        idleMs: 1,
        sender: async () => {
          most = Math.max(most, ++inFlight);
          await new Promise((resolve) => setTimeout(resolve, 5));
          inFlight--;
          return true;
        },
      });
      const report = await worker.drain();
      expect(report.claimed).toBe(8);
      expect(most).toBe(2);
      expect((await queue.get("d"))?.state).toBe("pending");
      expect(() => new JobWorker(queue, { owner: "w", queues: [], sender: () => true })).toThrow(/queues/);
    });
  });
}
