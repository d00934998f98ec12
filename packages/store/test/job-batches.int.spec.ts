import { BadAck, ManualClock, Permanent, Retryable, seededRng } from "@verq/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobQueue, JobWorker, type ClaimedJob, type VerqStore } from "../src/index.ts";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    const T0 = 1_700_000_000_000;
    let database: TestDatabase;
    let store: VerqStore;
    let clock: ManualClock;
    let queue: JobQueue;

    beforeEach(async () => {
      database = await createTestDatabase(engine);
      store = await database.open();
      clock = new ManualClock(T0);
      queue = new JobQueue(store, {
        clock,
        rng: seededRng(1),
        backoff: { baseMs: 100, factor: 2, maxMs: 1_000, jitter: "none" },
        defaultLeaseMs: 1_000,
      });
    });
    afterEach(async () => {
      await store.close();
      await database.dispose();
    });

    async function everything() {
      const jobs = await store.db.selectFrom("jobs").selectAll().orderBy("id").execute();
      const events = await store.db.selectFrom("events").selectAll().orderBy("position").execute();
      return { jobs, events };
    }

    const ids = (n: number, prefix = "job") => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(4, "0")}`);

    describe("enqueueMany (SPEC J2 in one transaction)", () => {
      it("creates every job, in input order, with one event each; a repeat with the same payloads is a no-op", async () => {
        const inputs = ids(1_200).map((id, i) => ({ id, payload: { quantity: i } }));
        const first = await queue.enqueueMany(inputs);
        expect(first.map((r) => [r.created, r.job.id])).toEqual(inputs.map((i) => [true, i.id]));
        const again = await queue.enqueueMany(inputs);
        expect(again.every((r) => !r.created)).toBe(true);
        expect(again[7]?.job).toEqual(first[7]?.job);
        const { jobs, events } = await everything();
        expect([jobs.length, events.length]).toEqual([1_200, 1_200]);
        // Enqueue order is the claim order (over 1,000 rows: two statements, one order).
        expect((await queue.claimMany("w", 1_000)).map((j) => j.id)).toEqual(inputs.slice(0, 1_000).map((i) => i.id));
      });

      it("the same id twice in one batch: created once; with a different payload the whole batch is refused", async () => {
        const [a, b] = await queue.enqueueMany([
          { id: "twin", payload: { n: 1 } },
          { id: "twin", payload: { n: 1 } },
        ]);
        expect([a?.created, b?.created]).toEqual([true, false]);
        await queue.enqueue({ id: "kept", payload: 1 });
        const before = await everything();
        await expect(
          queue.enqueueMany([
            { id: "new-1", payload: 1 },
            { id: "kept", payload: 2 },
          ]),
        ).rejects.toMatchObject({ code: "VERQ_ENQUEUE_CONFLICT" });
        await expect(
          queue.enqueueMany([
            { id: "new-2", payload: 1 },
            { id: "", payload: 1 },
          ]),
        ).rejects.toMatchObject({
          code: "VERQ_INVALID_ID",
        });
        await expect(queue.enqueueMany("not an array" as never)).rejects.toMatchObject({ code: "VERQ_INVALID_ARGUMENT" });
        expect(await everything()).toEqual(before);
      });
    });

    describe("claimMany and finishMany (SPEC J3/J4 in one transaction)", () => {
      it("claims distinct due jobs with token 1 each, oldest first, and never more than are due", async () => {
        await queue.enqueueMany(ids(5).map((id) => ({ id, payload: null })));
        await queue.enqueue({ id: "later", payload: null, availableAt: T0 + 10_000 });
        const claimed = await queue.claimMany("w", 10);
        expect(claimed.map((j) => [j.id, j.token, j.owner, j.leaseUntil])).toEqual(ids(5).map((id) => [id, 1, "w", T0 + 1_000]));
        expect(await queue.claimMany("w", 10)).toEqual([]);
        await expect(queue.claimMany("w", 0)).rejects.toMatchObject({ code: "VERQ_INVALID_ARGUMENT" });
        await expect(queue.claimMany("w", 1_001)).rejects.toMatchObject({ code: "VERQ_INVALID_ARGUMENT" });
      });

      it("leases that ran out at the same instant are claimed again in enqueue order, whatever wrote their rows since", async () => {
        await queue.enqueueMany(ids(4).map((id) => ({ id, payload: null })));
        const held = await queue.claimMany("w1", 4);
        // Heartbeats, last job first, move every lease to one new instant: the rows are written
        // again in the reverse order of their enqueue.
        for (const job of [...held].reverse()) expect(await queue.heartbeat(job.id, job.token, 2_000)).toBe(true);
        clock.advance(2_000);
        expect((await queue.claimMany("w2", 4)).map((j) => [j.id, j.token])).toEqual(ids(4).map((id) => [id, 2]));
      });

      it("quarantines spent expired leases on the way and still fills the batch", async () => {
        await queue.enqueueMany(ids(3, "spent").map((id) => ({ id, payload: null, maxAttempts: 1 })));
        await queue.claimMany("w1", 3);
        await queue.enqueueMany(ids(2, "fresh").map((id) => ({ id, payload: null })));
        clock.advance(1_000);
        const claimed = await queue.claimMany("w2", 2);
        expect(claimed.map((j) => j.id)).toEqual(ids(2, "fresh"));
        expect((await queue.list("dead")).map((j) => [j.id, j.reason])).toEqual(ids(3, "spent").map((id) => [id, "exhausted"]));
      });

      it("judges each finish as if they ran one after another: the second finish of one token is stale", async () => {
        await queue.enqueueMany(ids(3).map((id) => ({ id, payload: null })));
        const [a, b, c] = (await queue.claimMany("w", 3)) as [ClaimedJob, ClaimedJob, ClaimedJob];
        const accepted = await queue.finishMany([
          { id: a.id, token: a.token, outcome: "ok" },
          { id: a.id, token: a.token, outcome: "permanent" },
          { id: b.id, token: b.token, outcome: "retry" },
          { id: c.id, token: 99, outcome: "ok" },
        ]);
        expect(accepted).toEqual([true, false, true, false]);
        expect([(await queue.get(a.id))?.state, (await queue.get(b.id))?.state, (await queue.get(c.id))?.state]).toEqual([
          "done",
          "pending",
          "leased",
        ]);
        expect((await queue.get(b.id))?.availableAt).toBe(T0 + 100);
        expect((await queue.stats()).staleFinishesRefused).toBe(2);
      });

      it("an unknown id or a bad outcome refuses the whole batch and changes nothing", async () => {
        await queue.enqueue({ id: "x", payload: null });
        const x = (await queue.claim("w")) as ClaimedJob;
        const before = await everything();
        await expect(
          queue.finishMany([
            { id: "x", token: x.token, outcome: "ok" },
            { id: "nope", token: 1, outcome: "ok" },
          ]),
        ).rejects.toMatchObject({
          code: "VERQ_UNKNOWN_JOB",
        });
        await expect(queue.finishMany([{ id: "x", token: x.token, outcome: "maybe" as never }])).rejects.toMatchObject({
          code: "VERQ_INVALID_ARGUMENT",
        });
        expect(await everything()).toEqual(before);
      });
    });

    describe("JobWorker (group commit with the semantics of claim → send → finish)", () => {
      it("drains every job once, sharing commits among the jobs of a round", async () => {
        const clockless = new JobQueue(store);
        await clockless.enqueueMany(ids(500).map((id, i) => ({ id, payload: { quantity: i } })));
        const seen: string[] = [];
        const worker = new JobWorker(clockless, {
          owner: "w",
          concurrency: 8,
          batchSize: 100,
          sender: async (job) => {
            seen.push(`${job.id}#${job.token}`);
            await new Promise((resolve) => setImmediate(resolve));
            return true;
          },
        });
        const report = await worker.drain();
        expect(new Set(seen).size).toBe(500);
        expect(seen.length).toBe(500);
        expect(report).toMatchObject({ ok: 500, retry: 0, permanent: 0, refused: 0, leftLeased: 0 });
        expect(report.claimTransactions).toBeLessThan(20);
        expect(report.finishTransactions).toBeLessThan(100);
        expect((await clockless.stats()).byState).toMatchObject({ done: 500, pending: 0, leased: 0 });
      });

      it("maps Retryable, Permanent, BadAck and unexpected errors like runOnce", async () => {
        const clockless = new JobQueue(store, { backoff: { baseMs: 60_000, factor: 1, maxMs: 60_000, jitter: "none" } });
        await clockless.enqueueMany(["ok", "retry", "permanent", "badack", "boom"].map((id) => ({ id, payload: null })));
        const errors: string[] = [];
        const worker = new JobWorker(clockless, {
          owner: "w",
          concurrency: 5,
          sender: (job) => {
            if (job.id === "retry") throw new Retryable("busy");
            if (job.id === "permanent") throw new Permanent("bad request");
            if (job.id === "badack") return { ok: "yes" };
            if (job.id === "boom") throw new Error("boom");
            return true;
          },
          onSendError: (job, error) => errors.push(`${job.id}:${error instanceof BadAck ? "BadAck" : String(error)}`),
        });
        const report = await worker.drain();
        expect(report).toMatchObject({ ok: 1, retry: 1, permanent: 1, leftLeased: 2 });
        expect(errors.sort()).toEqual(["badack:BadAck", "boom:Error: boom"]);
        const states: Record<string, string | undefined> = Object.fromEntries(
          await Promise.all(
            ["ok", "retry", "permanent", "badack", "boom"].map(async (id) => [id, (await clockless.get(id))?.state] as const),
          ),
        );
        expect(states).toEqual({ ok: "done", retry: "pending", permanent: "dead", badack: "leased", boom: "leased" });
      });

      it("a lease lost while sending: the late outcome is refused, the new holder's is kept", async () => {
        await queue.enqueue({ id: "slow", payload: null });
        let release: () => void = () => undefined;
        // A lease of a minute on the test's clock: the worker's heartbeats (every third of it, in
        // real time) never come during the test, so none can extend the lease, or hold the row
        // locked while the thief's claim skips locked rows.
        const worker = new JobWorker(queue, {
          owner: "slow-worker",
          leaseMs: 60_000,
          sender: () => new Promise<boolean>((resolve) => (release = () => resolve(true))),
        });
        // One claim in all: a worker that polled on would itself take over the job once its lease
        // ran out (or hold the row locked while the thief's claim skips locked rows).
        const draining = worker.drain({ limit: 1 });
        // Until the worker holds the job (its claim in flight would keep the row locked).
        while ((await queue.get("slow"))?.state !== "leased") await new Promise((resolve) => setTimeout(resolve, 5));
        clock.advance(60_000);
        const thief = (await queue.claim("other")) as ClaimedJob;
        expect(thief.token).toBe(2);
        release();
        expect(await draining).toMatchObject({ ok: 0, refused: 1 });
        expect(await queue.finish("slow", 2, "ok")).toBe(true);
      });

      it("start/stop: a started worker picks up jobs enqueued later through the same queue at once", async () => {
        const clockless = new JobQueue(store);
        const done: string[] = [];
        const worker = new JobWorker(clockless, { owner: "w", idleMs: 60_000, sender: (job) => done.push(job.id) > 0 });
        worker.start();
        await clockless.enqueue({ id: "late", payload: null });
        // Woken by the enqueue, not by its next poll a minute away: 10 s leaves room for a loaded machine.
        for (let i = 0; i < 2_000 && done.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
        const report = await worker.stop();
        expect(done).toEqual(["late"]);
        expect(report.ok).toBe(1);
        expect(() => new JobWorker(clockless, { owner: "w", sender: () => true, concurrency: 0 })).toThrow(/concurrency/);
      });
    });
  });
}
