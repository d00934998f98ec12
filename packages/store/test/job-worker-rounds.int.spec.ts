import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobQueue, JobWorker, type JobWorkerResult, type VerqStore } from "../src/index.ts";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";

const ids = (n: number, prefix = "job"): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(3, "0")}`);

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] JobWorker rounds: rounds under way at once`, () => {
    let database: TestDatabase;
    let store: VerqStore;
    let queue: JobQueue;

    beforeEach(async () => {
      database = await createTestDatabase(engine);
      store = await database.open();
      queue = new JobQueue(store);
    });
    afterEach(async () => {
      await store.close();
      await database.dispose();
    });

    it("sends every job once and holds at most rounds × batchSize leases at any time", async () => {
      await queue.enqueueMany(ids(120).map((id) => ({ id, payload: null })));
      let mostLeased = 0;
      const sent: string[] = [];
      const worker = new JobWorker(queue, {
        owner: "w",
        concurrency: 4,
        batchSize: 10,
        rounds: 2,
        logger: null,
        sender: async (job) => {
          sent.push(job.id);
          mostLeased = Math.max(mostLeased, (await queue.stats()).byState.leased ?? 0);
          return true;
        },
      });
      const report = await worker.drain();
      expect(report).toMatchObject({ claimed: 120, ok: 120, refused: 0, errors: 0 });
      expect(sent.sort()).toEqual(ids(120));
      expect(mostLeased).toBeGreaterThan(0);
      expect(mostLeased).toBeLessThanOrEqual(20);
      expect((await queue.stats()).byState).toMatchObject({ done: 120, pending: 0, leased: 0 });
      // One claim per job, with token 1: no job was handed to two rounds.
      for (const id of ids(120)) {
        const types = (await queue.history(id)).map((e) => e.type);
        expect(types).toEqual(["job.enqueued", "job.claimed", "job.completed"]);
      }
    });

    it("drain({ limit }) claims exactly `limit` jobs across its rounds", async () => {
      await queue.enqueueMany(ids(20).map((id) => ({ id, payload: null })));
      const worker = new JobWorker(queue, {
        owner: "w",
        concurrency: 2,
        batchSize: 4,
        rounds: 2,
        logger: null,
        sender: () => true,
      });
      expect(await worker.drain({ limit: 7 })).toMatchObject({ claimed: 7, ok: 7 });
      expect((await queue.stats()).byState).toMatchObject({ done: 7, pending: 13, leased: 0 });
    });

    it("with nothing due, one claim and the drain ends: the other rounds wait for a backlog", async () => {
      const worker = new JobWorker(queue, { owner: "w", rounds: 4, idleMs: 60_000, logger: null, sender: () => true });
      expect(await worker.drain()).toMatchObject({ claimed: 0, claimTransactions: 1, finishTransactions: 0 });
    });

    it("a drain does not end while another round is under way: a queue at its limit is worked to the end", async () => {
      await queue.setQueueLimit("mail", { maxLeased: 1 });
      await queue.enqueueMany(ids(4, "mail").map((id) => ({ id, payload: null, queue: "mail" })));
      const sent: string[] = [];
      const worker = new JobWorker(queue, {
        owner: "w",
        queues: ["mail"],
        concurrency: 3,
        rounds: 2,
        idleMs: 1,
        logger: null,
        sender: async (job) => {
          sent.push(job.id);
          await new Promise((resolve) => setTimeout(resolve, 5));
          return true;
        },
      });
      expect(await worker.drain()).toMatchObject({ claimed: 4, ok: 4 });
      expect(sent).toEqual(ids(4, "mail"));
    });

    it("a failed round ends every round of the drain, with its error; the jobs stay leased as after a crash", async () => {
      await queue.enqueueMany(ids(40).map((id) => ({ id, payload: null })));
      let records = 0;
      const worker = new JobWorker(queue, {
        owner: "w",
        concurrency: 4,
        batchSize: 8,
        rounds: 2,
        logger: null,
        sender: () => true,
        beforeRecord: () => {
          if (++records === 2) throw new Error("disk full");
        },
      });
      await expect(worker.drain()).rejects.toThrow("disk full");
      const after = (await queue.stats()).byState;
      // Nothing is claimed or recorded once the run has failed: the counts stay as they are.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await queue.stats()).byState).toEqual(after);
      expect(after.leased ?? 0).toBeGreaterThan(0);
      expect((after.done ?? 0) + (after.leased ?? 0) + (after.pending ?? 0)).toBe(40);
    });

    it("a started worker works what is enqueued after it started, and stop() ends every round", async () => {
      const finished: JobWorkerResult[] = [];
      const worker = new JobWorker(queue, {
        owner: "w",
        concurrency: 4,
        batchSize: 8,
        rounds: 2,
        idleMs: 20,
        logger: null,
        sender: () => true,
        onFinished: (r) => finished.push(r),
      });
      worker.start();
      await queue.enqueueMany(ids(50).map((id) => ({ id, payload: null })));
      for (let i = 0; i < 500 && finished.length < 50; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      const report = await worker.stop();
      expect(report).toMatchObject({ claimed: 50, ok: 50, refused: 0 });
      expect(finished.map((r) => r.id).sort()).toEqual(ids(50));
      await queue.enqueue({ id: "late", payload: null });
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(await queue.get("late")).toMatchObject({ state: "pending" });
    });

    it.each([0, 5, 1.5])("rounds %s is VERQ_INVALID_ARGUMENT (1 to 4)", (rounds) => {
      expect(() => new JobWorker(queue, { owner: "w", rounds, sender: () => true })).toThrow(
        expect.objectContaining({ code: "VERQ_INVALID_ARGUMENT" }),
      );
    });
  });
}
