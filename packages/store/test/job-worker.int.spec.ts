import { BadAck, ManualClock } from "@verq/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobQueue, JobWorker, type JobWorkerResult, type VerqStore } from "../src/index.ts";
import { committedStateReader, type CommittedStateReader } from "./helpers/committed-state.ts";
import { until } from "./helpers/until.ts";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    // Real time throughout: heartbeats run on timers, and leases on the system clock.
    let database: TestDatabase;
    let store: VerqStore;
    let queue: JobQueue;
    let reader: CommittedStateReader;

    beforeEach(async () => {
      database = await createTestDatabase(engine);
      store = await database.open();
      queue = new JobQueue(store);
      reader = committedStateReader(database);
    });
    afterEach(async () => {
      reader.close();
      await store.close();
      await database.dispose();
    });

    /** A job's committed state, read at once through a second connection (what another process would see). */
    const committedState = (id: string): unknown => reader.state(id);

    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const eventTypes = async (id: string) => (await queue.history(id)).map((e) => e.type);

    describe("JobWorker.drain({ limit }): runOnce's contract with the worker's bookkeeping", () => {
      it("claims at most `limit` jobs, oldest first, and reports each outcome after it is recorded", async () => {
        await queue.enqueueMany(["a", "b", "c"].map((id) => ({ id, payload: null })));
        const results: { result: JobWorkerResult; state: unknown }[] = [];
        const worker = new JobWorker(queue, {
          owner: "w",
          concurrency: 4,
          sender: () => true,
          // Reported only once committed: the job is already done when the callback runs.
          onFinished: (result) => results.push({ result, state: committedState(result.id) }),
        });
        const report = await worker.drain({ limit: 1 });
        expect(report).toMatchObject({ claimed: 1, ok: 1, leftLeased: 0 });
        expect(results).toEqual([
          {
            result: {
              id: "a",
              token: 1,
              outcome: "ok",
              accepted: true,
              queue: "default",
              kind: null,
              failure: null,
              handlerMs: expect.any(Number) as unknown,
            },
            state: "done",
          },
        ]);
        expect((await queue.stats()).byState).toMatchObject({ done: 1, pending: 2, leased: 0 });
      });

      it("with nothing due, claims nothing and ends at once", async () => {
        const report = await new JobWorker(queue, { owner: "w", sender: () => true, idleMs: 60_000 }).drain({ limit: 1 });
        expect(report).toMatchObject({ claimed: 0, ok: 0, claimTransactions: 1, finishTransactions: 0 });
      });

      it("a BadAck under a limit is counted and passed to onSendError; the job stays leased", async () => {
        await queue.enqueue({ id: "bad", payload: null });
        const errors: unknown[] = [];
        const report = await new JobWorker(queue, {
          owner: "w",
          sender: () => ({ ok: "yes" }),
          onSendError: (_job, e) => errors.push(e),
        }).drain({ limit: 1 });
        expect(report).toMatchObject({ claimed: 1, leftLeased: 1, ok: 0 });
        expect(errors).toEqual([expect.any(BadAck)]);
        expect(await queue.get("bad")).toMatchObject({ state: "leased", token: 1 });
      });

      it("rejects a limit that is not a whole number of at least 1", async () => {
        const worker = new JobWorker(queue, { owner: "w", sender: () => true });
        await expect(worker.drain({ limit: 0 })).rejects.toMatchObject({ code: "VERQ_INVALID_ARGUMENT" });
        await expect(worker.drain({ limit: 1.5 })).rejects.toMatchObject({ code: "VERQ_INVALID_ARGUMENT" });
      });
    });

    describe("heartbeats: the worker keeps the leases of the jobs it holds", () => {
      // Long enough that a heartbeat every third of a lease is never a whole lease late, even on a
      // loaded CI machine with PostgreSQL (600 ms was once missed there).
      const HELD_LEASE_MS = 1_500;

      it("a send three times as long as the lease keeps its lease: no other worker can claim it, and its outcome is accepted", async () => {
        await queue.enqueue({ id: "slow", payload: null });
        let stolen: unknown = "not tried";
        const worker = new JobWorker(queue, {
          owner: "slow-worker",
          leaseMs: HELD_LEASE_MS,
          sender: async () => {
            await sleep(3 * HELD_LEASE_MS);
            stolen = await queue.claim("thief", { leaseMs: 1_000 });
            return true;
          },
        });
        const report = await worker.drain();
        expect(stolen).toBeNull();
        expect(report).toMatchObject({ ok: 1, refused: 0 });
        expect(report.heartbeats).toBeGreaterThanOrEqual(3);
        const types = await eventTypes("slow");
        expect(types.filter((t) => t === "job.leaseExtended").length).toBe(report.heartbeats);
        expect(types.at(-1)).toBe("job.completed");
      });

      it("jobs claimed beyond the concurrency keep their leases while they wait", async () => {
        await queue.enqueueMany(["w1", "w2"].map((id) => ({ id, payload: null })));
        const stolen: unknown[] = [];
        const worker = new JobWorker(queue, {
          owner: "w",
          leaseMs: HELD_LEASE_MS,
          concurrency: 1,
          batchSize: 2,
          sender: async (job) => {
            if (job.id === "w1") {
              await sleep(3 * HELD_LEASE_MS);
              stolen.push(await queue.claim("thief"));
            }
            return true;
          },
        });
        expect(await worker.drain()).toMatchObject({ claimed: 2, ok: 2, refused: 0 });
        expect(stolen).toEqual([null]);
      });

      it("a job left leased by a BadAck gets no heartbeat: its lease expires and another worker reclaims it", async () => {
        // Leases on a clock of the test's own, so that the lease runs out only when the test says
        // (the worker's own polls could otherwise take the expired job over); heartbeats stay on
        // real timers, every 20 ms of a 60 ms lease, and would extend it if they ran.
        const clock = new ManualClock(Date.now());
        const leased = new JobQueue(store, { clock });
        await leased.enqueue({ id: "left", payload: null });
        const worker = new JobWorker(leased, { owner: "w", leaseMs: 60, idleMs: 600_000, sender: () => "yes" });
        worker.start();
        await until(async () => (await eventTypes("left")).includes("job.failed"), "the BadAck to be recorded");
        // The worker is still running (and would still be beating) while the lease runs out.
        await sleep(250);
        clock.advance(60);
        const reclaimed = await leased.claim("other");
        const report = await worker.stop();
        expect(report).toMatchObject({ leftLeased: 1, heartbeats: 0 });
        expect(reclaimed).toMatchObject({ id: "left", token: 2 });
        expect(await eventTypes("left")).not.toContain("job.leaseExtended");
      });
    });

    describe("beforeRecord and failed rounds", () => {
      it("beforeRecord sees the outcomes after their sends and before they are recorded", async () => {
        await queue.enqueueMany(["x", "y"].map((id) => ({ id, payload: null })));
        const sent: string[] = [];
        const seen: string[] = [];
        const worker = new JobWorker(queue, {
          owner: "w",
          concurrency: 2,
          sender: (job) => sent.push(job.id) > 0,
          beforeRecord: (outcomes) => {
            for (const o of outcomes)
              seen.push(`${o.id}#${o.token}:${o.outcome}:sent=${sent.includes(o.id)}:${String(committedState(o.id))}`);
          },
        });
        expect(await worker.drain()).toMatchObject({ ok: 2 });
        expect(seen.sort()).toEqual(["x#1:ok:sent=true:leased", "y#1:ok:sent=true:leased"]);
      });

      it("a drain ends at a failed round, with the error; the jobs stay leased as after a crash", async () => {
        await queue.enqueue({ id: "f", payload: null });
        const errors: unknown[] = [];
        const worker = new JobWorker(queue, {
          owner: "w",
          sender: () => true,
          onError: (e) => errors.push(e),
          beforeRecord: () => {
            throw new Error("disk full");
          },
        });
        await expect(worker.drain()).rejects.toThrow("disk full");
        expect(errors).toEqual([]);
        expect(await queue.get("f")).toMatchObject({ state: "leased", token: 1 });
      });

      it("a started worker with onError reports a failed round and records its outcomes in a later round", async () => {
        await queue.enqueue({ id: "g", payload: null });
        const errors: string[] = [];
        let failures = 1;
        const finished: JobWorkerResult[] = [];
        const worker = new JobWorker(queue, {
          owner: "w",
          idleMs: 10,
          sender: () => true,
          onError: (e) => errors.push(String(e)),
          onFinished: (r) => finished.push(r),
          beforeRecord: () => {
            if (failures-- > 0) throw new Error("busy for a moment");
          },
        });
        worker.start();
        for (let i = 0; i < 100 && finished.length === 0; i++) await sleep(10);
        const report = await worker.stop();
        expect(errors).toEqual(["Error: busy for a moment"]);
        expect(finished).toMatchObject([{ id: "g", token: 1, outcome: "ok", accepted: true }]);
        expect(report).toMatchObject({ ok: 1, errors: 1, finishTransactions: 1 });
        expect(await queue.get("g")).toMatchObject({ state: "done" });
      });

      it("a started worker without onError ends at a failed round: stop() rejects with its error", async () => {
        await queue.enqueue({ id: "h", payload: null });
        const worker = new JobWorker(queue, {
          owner: "w",
          idleMs: 10,
          sender: () => true,
          beforeRecord: () => {
            throw new Error("read-only database");
          },
        });
        worker.start();
        for (let i = 0; i < 100 && (await queue.get("h"))?.state !== "leased"; i++) await sleep(10);
        await sleep(50);
        await expect(worker.stop()).rejects.toThrow("read-only database");
        expect(await queue.get("h")).toMatchObject({ state: "leased" });
      });
    });
  });
}
