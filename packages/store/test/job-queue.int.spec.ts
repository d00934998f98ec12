import { BadAck, ManualClock, Permanent, Retryable, seededRng, type FinishOutcome } from "@verq/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobQueue, type JobQueueOptions, type VerqStore } from "../src/index.ts";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    const T0 = 1_700_000_000_000;
    let database: TestDatabase;
    let store: VerqStore;
    let clock: ManualClock;
    let queue: JobQueue;

    function makeQueue(options: JobQueueOptions = {}): JobQueue {
      return new JobQueue(store, {
        clock,
        rng: seededRng(1),
        backoff: { baseMs: 100, factor: 2, maxMs: 1_000, jitter: "none" },
        defaultLeaseMs: 1_000,
        ...options,
      });
    }

    beforeEach(async () => {
      database = await createTestDatabase(engine);
      store = await database.open();
      clock = new ManualClock(T0);
      queue = makeQueue();
    });
    afterEach(async () => {
      await store.close();
      await database.dispose();
    });

    /** Everything a caller could observe, to prove that a refused call changed nothing. */
    async function snapshotAll() {
      const jobs = await store.db.selectFrom("jobs").selectAll().orderBy("id").execute();
      const events = await store.db.selectFrom("events").selectAll().orderBy("position").execute();
      const redrives = await store.db.selectFrom("redrives").selectAll().orderBy("position").execute();
      return { jobs, events, redrives };
    }

    async function expectUnchangedAfter(work: () => Promise<unknown>, code: string): Promise<void> {
      const before = await snapshotAll();
      await expect(work()).rejects.toMatchObject({ code });
      expect(await snapshotAll()).toEqual(before);
    }

    async function deadJob(id: string, outcome: FinishOutcome = "permanent"): Promise<void> {
      await queue.enqueue({ id, payload: { quantity: 1 }, maxAttempts: 1 });
      const job = await queue.claim("w");
      if (job?.id !== id) throw new Error("expected to claim " + id);
      await queue.finish(id, job.token, outcome);
    }

    describe("J1 states", () => {
      it("J1: every path keeps the business id and payload; dead always has a reason", async () => {
        await queue.enqueue({ id: "cake-1", payload: { quantity: 7, item: "cake" }, maxAttempts: 2 });
        const seen = [];
        let job = await queue.claim("A");
        seen.push(await queue.get("cake-1"));
        await queue.finish("cake-1", job!.token, "retry");
        seen.push(await queue.get("cake-1"));
        clock.advance(10_000);
        job = await queue.claim("A");
        await queue.finish("cake-1", job!.token, "retry");
        seen.push(await queue.get("cake-1"));
        for (const s of seen) expect(s).toMatchObject({ id: "cake-1", payload: { quantity: 7, item: "cake" } });
        expect(seen.at(-1)).toMatchObject({ state: "dead", reason: "exhausted" });
      });
    });

    describe("J2 enqueue", () => {
      it("J2: stores id, payload, budget and absolute deadline", async () => {
        const { created, job } = await queue.enqueue({ id: "a", payload: { quantity: 7 }, maxAttempts: 4, deadline: T0 + 5_000 });
        expect(created).toBe(true);
        expect(job).toMatchObject({
          id: "a",
          state: "pending",
          token: 0,
          attempts: 0,
          maxAttempts: 4,
          deadline: T0 + 5_000,
          availableAt: T0,
        });
      });

      it("J2: the same id with the same payload is a no-op, whatever the key order", async () => {
        await queue.enqueue({ id: "a", payload: { quantity: 7, sku: "x" } });
        const before = await snapshotAll();
        const again = await queue.enqueue({ id: "a", payload: { sku: "x", quantity: 7 } });
        expect(again.created).toBe(false);
        expect(await snapshotAll()).toEqual(before);
      });

      it("J2: the same id with a different payload is VERQ_ENQUEUE_CONFLICT and changes nothing", async () => {
        await queue.enqueue({ id: "a", payload: { quantity: 7 } });
        await expectUnchangedAfter(() => queue.enqueue({ id: "a", payload: { quantity: 8 } }), "VERQ_ENQUEUE_CONFLICT");
      });

      it.each([
        ["an empty id", { id: "", payload: 1 }, "VERQ_INVALID_ID"],
        ["an id with a line break", { id: "a\nb", payload: 1 }, "VERQ_INVALID_ID"],
        ["an overlong id", { id: "x".repeat(257), payload: 1 }, "VERQ_INVALID_ID"],
        ["a payload that is not JSON-serialisable", { id: "a", payload: { n: 10n } }, "VERQ_INVALID_PAYLOAD"],
        ["an undefined payload", { id: "a", payload: undefined }, "VERQ_INVALID_PAYLOAD"],
        ["a deadline in the past", { id: "a", payload: 1, deadline: T0 - 1 }, "VERQ_INVALID_DEADLINE"],
        ["a deadline equal to now", { id: "a", payload: 1, deadline: T0 }, "VERQ_INVALID_DEADLINE"],
        ["zero attempts", { id: "a", payload: 1, maxAttempts: 0 }, "VERQ_INVALID_ARGUMENT"],
        ["fractional attempts", { id: "a", payload: 1, maxAttempts: 1.5 }, "VERQ_INVALID_ARGUMENT"],
      ])("J2: rejects %s with a stable code and changes nothing", async (_what, input, code) => {
        await queue.enqueue({ id: "existing", payload: { quantity: 1 } });
        await expectUnchangedAfter(() => queue.enqueue(input), code);
      });
    });

    describe("J3 claim", () => {
      it("J3: claims a due pending job with token 1, owner and leaseUntil", async () => {
        await queue.enqueue({ id: "a", payload: 1 });
        const job = await queue.claim("worker-A", { leaseMs: 500 });
        expect(job).toMatchObject({ id: "a", state: "leased", token: 1, attempts: 1, owner: "worker-A", leaseUntil: T0 + 500 });
      });

      it("J3: a job available at t is not claimed at t - 1 and is claimed at t", async () => {
        await queue.enqueue({ id: "later", payload: 1, availableAt: T0 + 100 });
        clock.set(T0 + 99);
        expect(await queue.claim("A")).toBeNull();
        clock.set(T0 + 100);
        expect(await queue.claim("A")).toMatchObject({ id: "later", token: 1 });
      });

      it("J3: at leaseUntil - 1 the lease is held; at leaseUntil the next claimer gets token 2", async () => {
        await queue.enqueue({ id: "a", payload: 1, maxAttempts: 3 });
        const first = await queue.claim("A", { leaseMs: 1_000 });
        clock.set(first!.leaseUntil - 1);
        expect(await queue.claim("B")).toBeNull();
        clock.set(first!.leaseUntil);
        expect(await queue.claim("B")).toMatchObject({ id: "a", token: 2, owner: "B", attempts: 2 });
        expect((await queue.stats()).leaseExpiries).toBe(1);
      });

      it("J3: a job waiting for its retry time never blocks other due jobs", async () => {
        await queue.enqueue({ id: "slow", payload: 1 });
        await queue.enqueue({ id: "other", payload: 2 });
        const slow = await queue.claim("A");
        expect(slow?.id).toBe("slow");
        await queue.finish("slow", slow!.token, "retry");
        expect(await queue.claim("A")).toMatchObject({ id: "other" });
        expect(await queue.claim("A")).toBeNull();
      });

      it("J3: a claim of an expired lease on the last attempt quarantines it and moves on", async () => {
        await queue.enqueue({ id: "crashy", payload: 1, maxAttempts: 1 });
        await queue.enqueue({ id: "fine", payload: 2, availableAt: T0 + 1_000 });
        await queue.claim("A", { leaseMs: 1_000 });
        clock.advance(1_000);
        expect(await queue.claim("B")).toMatchObject({ id: "fine" });
        expect(await queue.get("crashy")).toMatchObject({ state: "dead", reason: "exhausted" });
      });

      it.each([
        ["zero", 0],
        ["negative", -5],
        ["fractional", 1.5],
        ["longer than a day", 86_400_001],
      ])("J3: a %s lease is VERQ_INVALID_LEASE and changes nothing", async (_what, leaseMs) => {
        await queue.enqueue({ id: "a", payload: 1 });
        await expectUnchangedAfter(() => queue.claim("A", { leaseMs }), "VERQ_INVALID_LEASE");
      });

      it("J3: an empty owner is refused", async () => {
        await expectUnchangedAfter(() => queue.claim(""), "VERQ_INVALID_ARGUMENT");
      });
    });

    describe("J4 finish", () => {
      it("J4: ok → done, clearing only owner and leaseUntil", async () => {
        await queue.enqueue({ id: "a", payload: { quantity: 7 } });
        const job = await queue.claim("A");
        expect(await queue.finish("a", job!.token, "ok")).toBe(true);
        expect(await queue.get("a")).toEqual({ ...job, state: "done", owner: null, leaseUntil: null, version: 3 });
      });

      it("J4: permanent → dead(permanent)", async () => {
        await deadJob("a");
        expect(await queue.get("a")).toMatchObject({ state: "dead", reason: "permanent", deadSince: T0 });
      });

      it("J4: retry at attempts max - 1 goes pending with backoff; at max it is dead(exhausted)", async () => {
        await queue.enqueue({ id: "a", payload: 1, maxAttempts: 2 });
        let job = await queue.claim("A");
        expect(await queue.finish("a", job!.token, "retry")).toBe(true);
        expect(await queue.get("a")).toMatchObject({ state: "pending", attempts: 1, availableAt: T0 + 100 });
        clock.advance(100);
        job = await queue.claim("A");
        expect(job?.attempts).toBe(2);
        expect(await queue.finish("a", job!.token, "retry")).toBe(true);
        expect(await queue.get("a")).toMatchObject({ state: "dead", reason: "exhausted" });
      });

      it("J4: retry whose next run is at deadline - 1 is scheduled; at the deadline it is dead(deadline)", async () => {
        // The first backoff is 100 ms (jitter none), so the next run is now + 100.
        await queue.enqueue({ id: "before", payload: 1, deadline: T0 + 101 });
        await queue.enqueue({ id: "at", payload: 1, deadline: T0 + 100 });
        for (const id of ["before", "at"]) {
          const job = await queue.claim("A");
          expect(job?.id).toBe(id);
          await queue.finish(id, job!.token, "retry");
        }
        expect(await queue.get("before")).toMatchObject({ state: "pending", availableAt: T0 + 100 });
        expect(await queue.get("at")).toMatchObject({ state: "dead", reason: "deadline" });
      });

      it("J4: a stale token returns false, changes nothing and is counted", async () => {
        await queue.enqueue({ id: "a", payload: 1 });
        const first = await queue.claim("A", { leaseMs: 100 });
        clock.advance(100);
        const second = await queue.claim("B");
        const jobsBefore = await store.db.selectFrom("jobs").selectAll().execute();
        const eventsBefore = await store.db.selectFrom("events").selectAll().execute();
        expect(await queue.finish("a", first!.token, "ok")).toBe(false);
        expect(await store.db.selectFrom("jobs").selectAll().execute()).toEqual(jobsBefore);
        expect(await store.db.selectFrom("events").selectAll().execute()).toEqual(eventsBefore);
        expect((await queue.stats()).staleFinishesRefused).toBe(1);
        expect(await queue.finish("a", second!.token, "ok")).toBe(true);
      });

      it("J4: finish on pending, done and dead jobs returns false", async () => {
        await queue.enqueue({ id: "p", payload: 1, availableAt: T0 + 10_000 });
        expect(await queue.finish("p", 1, "ok")).toBe(false);
        await queue.enqueue({ id: "d", payload: 1 });
        const d = await queue.claim("A");
        await queue.finish("d", d!.token, "ok");
        expect(await queue.finish("d", d!.token, "ok")).toBe(false);
        await deadJob("x");
        expect(await queue.finish("x", 1, "retry")).toBe(false);
      });

      it.each([
        ["an unknown id", () => queue.finish("nope", 1, "ok"), "VERQ_UNKNOWN_JOB"],
        ["a zero token", () => queue.finish("a", 0, "ok"), "VERQ_INVALID_ARGUMENT"],
        ["an unknown outcome", () => queue.finish("a", 1, "maybe" as FinishOutcome), "VERQ_INVALID_ARGUMENT"],
      ])("J4: %s is a coded error that changes nothing", async (_what, call, code) => {
        await queue.enqueue({ id: "a", payload: 1 });
        await queue.claim("A");
        await expectUnchangedAfter(call, code);
      });
    });

    describe("J5 runOnce", () => {
      it("J5: exactly true is ok", async () => {
        await queue.enqueue({ id: "a", payload: 1 });
        expect(await queue.runOnce("A", () => true)).toEqual({
          status: "finished",
          id: "a",
          token: 1,
          outcome: "ok",
          accepted: true,
        });
        expect(await queue.get("a")).toMatchObject({ state: "done" });
        expect(await queue.runOnce("A", () => true)).toEqual({ status: "idle" });
      });

      it.each([
        ["1", 1],
        ['"ok"', "ok"],
        ["a truthy object", { ok: true }],
        ["undefined", undefined],
      ])("J5: %s is a BadAck that propagates and leaves the job leased", async (_what, value) => {
        await queue.enqueue({ id: "a", payload: 1 });
        await expect(queue.runOnce("A", () => value)).rejects.toBeInstanceOf(BadAck);
        expect(await queue.get("a")).toMatchObject({ state: "leased", token: 1, owner: "A" });
      });

      it("J5: Retryable → retry, Permanent → permanent", async () => {
        await queue.enqueue({ id: "r", payload: 1 });
        expect(await queue.runOnce("A", () => Promise.reject(new Retryable()))).toMatchObject({
          outcome: "retry",
          accepted: true,
        });
        expect(await queue.get("r")).toMatchObject({ state: "pending" });
        await queue.enqueue({ id: "p", payload: 1 });
        expect(
          await queue.runOnce("A", () => {
            throw new Permanent();
          }),
        ).toMatchObject({ id: "p", outcome: "permanent" });
        expect(await queue.get("p")).toMatchObject({ state: "dead", reason: "permanent" });
      });

      it("J5: an unexpected error propagates, the job stays leased, and a later claim recovers it", async () => {
        await queue.enqueue({ id: "a", payload: 1 });
        await expect(
          queue.runOnce("A", () => {
            throw new TypeError("boom");
          }),
        ).rejects.toThrow("boom");
        expect(await queue.get("a")).toMatchObject({ state: "leased", token: 1 });
        clock.advance(1_000);
        expect(await queue.runOnce("B", () => true)).toMatchObject({ id: "a", token: 2, accepted: true });
      });

      it("J5: a worker whose lease was taken over while sending gets accepted=false", async () => {
        await queue.enqueue({ id: "a", payload: 1 });
        const result = await queue.runOnce("A", async () => {
          clock.advance(1_000);
          const other = new JobQueue(store, { clock });
          await other.claim("B");
          return true;
        });
        expect(result).toMatchObject({ accepted: false, token: 1 });
        expect(await queue.get("a")).toMatchObject({ state: "leased", token: 2, owner: "B" });
      });
    });

    describe("J6 redrive", () => {
      it("J6: resets to pending with attempts 0 and the new deadline, keeps the token, writes the audit row", async () => {
        await deadJob("a");
        clock.advance(5_000);
        const record = await queue.redrive("a", { note: "OPS-1234", deadline: T0 + 100_000 });
        expect(record).toEqual({ jobId: "a", previousToken: 1, at: T0 + 5_000, note: "OPS-1234", deadline: T0 + 100_000 });
        expect(await queue.get("a")).toMatchObject({
          state: "pending",
          attempts: 0,
          token: 1,
          deadline: T0 + 100_000,
          reason: null,
        });
        const audit = await store.db.selectFrom("redrives").selectAll().execute();
        expect(audit).toEqual([expect.objectContaining({ job_id: "a", previous_token: 1, at_ms: T0 + 5_000, note: "OPS-1234" })]);
        const next = await queue.claim("B");
        expect(next?.token).toBe(2);
        expect(await queue.finish("a", 1, "ok")).toBe(false);
      });

      it("J6: the audit row and the reset are one transaction: a failure in between leaves neither", async () => {
        await deadJob("a");
        // A conflicting audit row at the position the redrive event will take makes the audit insert fail
        // after the event and the jobs row were written; the whole transaction must roll back.
        const nextPosition =
          Number(
            (
              await store.db
                .selectFrom("events")
                .select((eb) => eb.fn.max("position").as("p"))
                .executeTakeFirstOrThrow()
            ).p,
          ) + 1;
        await store.db
          .insertInto("redrives")
          .values({ position: nextPosition, job_id: "other", previous_token: 0, at_ms: 0, note: "X" })
          .execute();
        const before = await snapshotAll();
        await expect(queue.redrive("a", { note: "OPS-1" })).rejects.toThrow();
        expect(await snapshotAll()).toEqual(before);
        expect(await queue.get("a")).toMatchObject({ state: "dead" });
      });

      it.each(["pending", "leased", "done"] as const)(
        "J6: redrive of a %s job is VERQ_NOT_DEAD and changes nothing",
        async (state) => {
          await queue.enqueue({ id: "a", payload: 1 });
          if (state !== "pending") {
            const job = await queue.claim("A");
            if (state === "done") await queue.finish("a", job!.token, "ok");
          }
          expect((await queue.get("a"))?.state).toBe(state);
          await expectUnchangedAfter(() => queue.redrive("a", { note: "OPS-1" }), "VERQ_NOT_DEAD");
        },
      );

      it.each([
        ["empty", ""],
        ["non-ASCII", "チケット-1"],
        ["overlong", "T".repeat(65)],
        ["multi-line", "OPS-1\nrm -rf"],
        ["free text", "card 4111 declined"],
      ])("J6: a %s note is VERQ_INVALID_NOTE and changes nothing", async (_what, note) => {
        await deadJob("a");
        await expectUnchangedAfter(() => queue.redrive("a", { note }), "VERQ_INVALID_NOTE");
      });

      it("J6: without a deadline, every redrive gives the job its original window again, not a growing one", async () => {
        await queue.enqueue({ id: "w", payload: 1, maxAttempts: 1, deadline: T0 + 100 });
        for (let round = 0; round < 3; round++) {
          const job = await queue.claim("A");
          await queue.finish("w", job!.token, "permanent");
          clock.advance(1_000);
          const record = await queue.redrive("w", { note: `OPS-${round}` });
          expect(record.deadline - record.at).toBe(100);
        }
      });

      it("J6: unknown ids and past deadlines are refused", async () => {
        await deadJob("a");
        await expectUnchangedAfter(() => queue.redrive("nope", { note: "OPS-1" }), "VERQ_UNKNOWN_JOB");
        await expectUnchangedAfter(() => queue.redrive("a", { note: "OPS-1", deadline: T0 }), "VERQ_INVALID_DEADLINE");
      });
    });

    describe("J7 observability", () => {
      it("J7: dead count, ratio by reason, oldest dead job, last redrive, lease expiries", async () => {
        await deadJob("p1");
        clock.advance(10);
        await deadJob("p2");
        clock.advance(10);
        await queue.enqueue({ id: "e1", payload: 1, maxAttempts: 1 });
        const e1 = await queue.claim("A");
        await queue.finish("e1", e1!.token, "retry");
        await queue.enqueue({ id: "ok", payload: 1 });
        const ok = await queue.claim("A");
        await queue.finish("ok", ok!.token, "ok");
        clock.advance(10);
        await queue.redrive("p2", { note: "INC-9" });
        const stats = await queue.stats();
        expect(stats.byState).toEqual({ pending: 1, leased: 0, done: 1, dead: 2 });
        expect(stats.dead.count).toBe(2);
        expect(stats.dead.byReason.permanent).toEqual({ count: 1, ratio: 0.5 });
        expect(stats.dead.byReason.exhausted).toEqual({ count: 1, ratio: 0.5 });
        expect(stats.dead.byReason.deadline).toEqual({ count: 0, ratio: 0 });
        expect(stats.dead.oldest).toEqual({ id: "p1", deadSince: T0 });
        expect(stats.lastRedrive).toEqual({ jobId: "p2", at: T0 + 30, note: "INC-9", previousToken: 1, resultState: "pending" });
        expect(stats.leaseExpiries).toBe(0);
        expect(JSON.stringify(stats)).not.toContain("quantity");
      });

      it("J7: bulk redrive is rate-limited; what the limit holds back is deferred, not lost", async () => {
        queue = makeQueue({ redriveLimit: { max: 2, windowMs: 60_000 } });
        for (const id of ["a", "b", "c"]) await deadJob(id);
        const first = await queue.redriveDead({ note: "INC-1" });
        expect(first.redriven.map((r) => r.jobId)).toEqual(["a", "b"]);
        expect(first.deferred).toBe(1);
        await expectUnchangedAfter(() => queue.redrive("c", { note: "INC-1" }), "VERQ_REDRIVE_RATE_LIMITED");
        clock.advance(59_999);
        expect((await queue.redriveDead({ note: "INC-1" })).redriven).toEqual([]);
        clock.advance(1);
        expect((await queue.redriveDead({ note: "INC-1" })).redriven.map((r) => r.jobId)).toEqual(["c"]);
      });
    });

    describe("J10 ordering", () => {
      it("J10: jobs with one ordering key run one at a time in enqueue order; a dead head blocks its own group only", async () => {
        await queue.enqueue({ id: "acct-1", payload: 1, orderingKey: "acct", maxAttempts: 1 });
        await queue.enqueue({ id: "acct-2", payload: 2, orderingKey: "acct" });
        await queue.enqueue({ id: "free", payload: 3 });
        const head = await queue.claim("A");
        expect(head?.id).toBe("acct-1");
        expect((await queue.claim("A"))?.id).toBe("free");
        expect(await queue.claim("A")).toBeNull();
        await queue.finish("acct-1", head!.token, "permanent");
        expect(await queue.claim("A")).toBeNull();
        await queue.redrive("acct-1", { note: "OPS-7" });
        const again = await queue.claim("A");
        expect(again?.id).toBe("acct-1");
        await queue.finish("acct-1", again!.token, "ok");
        expect((await queue.claim("A"))?.id).toBe("acct-2");
      });
    });

    describe("heartbeat and history", () => {
      it("heartbeat extends the lease only for the current token while it is held", async () => {
        await queue.enqueue({ id: "a", payload: 1 });
        const job = await queue.claim("A", { leaseMs: 100 });
        clock.advance(99);
        expect(await queue.heartbeat("a", job!.token, 1_000)).toBe(true);
        clock.advance(500);
        expect(await queue.claim("B")).toBeNull();
        expect(await queue.heartbeat("a", job!.token + 1, 1_000)).toBe(false);
        await expectUnchangedAfter(() => queue.heartbeat("a", job!.token, 0), "VERQ_INVALID_LEASE");
        await expectUnchangedAfter(() => queue.heartbeat("zz", 1, 10), "VERQ_UNKNOWN_JOB");
      });

      it("history returns the stream with claims, tokens and owners", async () => {
        await deadJob("a");
        await queue.redrive("a", { note: "OPS-2" });
        const history = await queue.history("a");
        expect(history.map((e) => e.type)).toEqual(["job.enqueued", "job.claimed", "job.died", "job.redriven"]);
        expect(history[1]?.data).toMatchObject({ token: 1, owner: "w" });
        await expect(queue.history("missing")).rejects.toMatchObject({ code: "VERQ_UNKNOWN_JOB" });
      });
    });
  });
}
