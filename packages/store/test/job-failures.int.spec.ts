import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ManualClock, Permanent, Retryable, describeFailure, type FailureClassifier } from "@verq/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobQueue, JobWorker, type VerqLogger, type VerqStore } from "../src/index.ts";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";

/** Stands in every payload and error text: it must never reach the log or a log line. */
const SECRET = "ann@example.test";
const LEASE_MS = 30_000;

interface Logged {
  readonly level: string;
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

function keepingLogger(): { logger: VerqLogger; lines: Logged[] } {
  const lines: Logged[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) =>
    void lines.push({ level, message, fields: structuredClone(fields) });
  return { logger: { error: at("error"), warn: at("warn"), info: at("info"), debug: at("debug") }, lines };
}

/** A port on 127.0.0.1 that nothing listens on: one a server had, and gave back. */
async function deadPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] every failure recorded (W1)`, () => {
    let database: TestDatabase;
    let store: VerqStore;
    let clock: ManualClock;
    let queue: JobQueue;

    beforeEach(async () => {
      database = await createTestDatabase(engine);
      store = await database.open();
      clock = new ManualClock(Date.now());
      queue = new JobQueue(store, { clock, defaultLeaseMs: LEASE_MS });
    });
    afterEach(async () => {
      await store.close();
      await database.dispose();
    });

    /** The job's events as `type` plus the fields a reader of the history sees. */
    async function timeline(id: string): Promise<[string, Record<string, unknown>][]> {
      return (await queue.history(id)).map((e) => [e.type, e.data as Record<string, unknown>]);
    }

    it("a handler that throws: each attempt's failure is a job.failed event, logged once, counted; the lease still runs out (J5) and the dead job says what it last failed with", async () => {
      await queue.enqueue({ id: "welcome-1", payload: { email: SECRET }, maxAttempts: 2 });
      const { logger, lines } = keepingLogger();
      const throwing = () => {
        throw new TypeError(`cannot read properties of undefined (reading 'name') for ${SECRET}`);
      };
      const first = await new JobWorker(queue, { owner: "w1", logger, sender: throwing }).drain();
      expect(first).toMatchObject({ claimed: 1, leftLeased: 1, errors: 1, ok: 0, retry: 0 });
      // J5: the effect is unknown, so no retry before the lease expires.
      expect(await queue.get("welcome-1")).toMatchObject({
        state: "leased",
        token: 1,
        lastFailure: { category: "unexpected", errorClass: "TypeError", code: null, status: null, attempt: 1, token: 1 },
      });
      expect(await new JobWorker(queue, { owner: "w2", logger: null, sender: () => true }).drain()).toMatchObject({ claimed: 0 });

      clock.advance(LEASE_MS);
      await new JobWorker(queue, { owner: "w1", logger, sender: throwing }).drain();
      clock.advance(LEASE_MS);
      await new JobWorker(queue, { owner: "w1", logger, sender: throwing }).drain();

      const events = await timeline("welcome-1");
      expect(events.map(([type]) => type)).toEqual([
        "job.enqueued",
        "job.claimed",
        "job.failed",
        "job.leaseExpired",
        "job.claimed",
        "job.failed",
        "job.leaseExpired",
        "job.died",
      ]);
      expect(events[2]?.[1]).toEqual({
        token: 1,
        attempt: 1,
        failure: { category: "unexpected", errorClass: "TypeError", code: null, status: null },
        at: expect.any(Number) as unknown,
      });
      expect(events[5]?.[1]).toMatchObject({ token: 2, attempt: 2 });
      expect(events[7]?.[1]).toMatchObject({ reason: "exhausted" });
      expect(await queue.get("welcome-1")).toMatchObject({
        state: "dead",
        reason: "exhausted",
        lastFailure: { category: "unexpected", errorClass: "TypeError", attempt: 2, token: 2 },
      });
      const errors = lines.filter((l) => l.level === "error");
      expect(errors.map((l) => [l.fields["id"], l.fields["token"], l.fields["errorClass"]])).toEqual([
        ["welcome-1", 1, "TypeError"],
        ["welcome-1", 2, "TypeError"],
      ]);
      // The payload is in job.enqueued, and only there.
      expect(JSON.stringify([lines, events.slice(1)])).not.toContain(SECRET);
    });

    it("a handler that forgets `return true` is a bad acknowledgement, recorded with the type of what it returned nowhere but its class", async () => {
      await queue.enqueue({ id: "forgot", payload: null });
      const report = await new JobWorker(queue, { owner: "w", logger: null, sender: () => Promise.resolve(undefined) }).drain();
      expect(report).toMatchObject({ leftLeased: 1, errors: 1 });
      expect((await timeline("forgot")).map(([type]) => type)).toEqual(["job.enqueued", "job.claimed", "job.failed"]);
      expect(await queue.get("forgot")).toMatchObject({
        state: "leased",
        lastFailure: { category: "bad-ack", errorClass: "BadAck", code: "VERQ_BAD_ACK", attempt: 1 },
      });
    });

    it("a dead port: fetch's failure is recorded with the socket's code; a classifier that declares ECONNREFUSED retryable gets retry with backoff instead", async () => {
      const port = await deadPort();
      const post = async () => {
        const response = await fetch(`http://127.0.0.1:${port}/mail`, { method: "POST", body: "{}" });
        return response.ok;
      };
      await queue.enqueue({ id: "unknown-effect", payload: null });
      await new JobWorker(queue, { owner: "w", logger: null, sender: post }).drain();
      expect(await queue.get("unknown-effect")).toMatchObject({
        state: "leased",
        lastFailure: { category: "unexpected", errorClass: "TypeError", code: "ECONNREFUSED" },
      });

      const classify: FailureClassifier = (error) =>
        (error as { cause?: { code?: unknown } }).cause?.code === "ECONNREFUSED" ? "retry" : undefined;
      await queue.enqueue({ id: "declared", payload: null, maxAttempts: 2 });
      const report = await new JobWorker(queue, { owner: "w", logger: null, sender: post, classify }).drain();
      expect(report).toMatchObject({ retry: 1, leftLeased: 0, errors: 0 });
      const events = await timeline("declared");
      expect(events.map(([type]) => type)).toEqual(["job.enqueued", "job.claimed", "job.retryScheduled"]);
      expect(events[2]?.[1]).toMatchObject({
        attempt: 1,
        failure: { category: "retryable", errorClass: "TypeError", code: "ECONNREFUSED", status: null },
      });
      expect(await queue.get("declared")).toMatchObject({ state: "pending", lastFailure: { category: "retryable", attempt: 1 } });
    });

    it("Retryable and Permanent record the same fields on their events; a retry past the budget dies with its failure", async () => {
      await queue.enqueue({ id: "flaky", payload: null, maxAttempts: 1 });
      await queue.enqueue({ id: "refused", payload: null });
      const sender = (job: { id: string }) => {
        if (job.id === "flaky")
          throw new Retryable("upstream busy", { cause: Object.assign(new Error(SECRET), { status: 503 }) });
        throw new Permanent(`no mailbox ${SECRET}`);
      };
      await new JobWorker(queue, { owner: "w", logger: null, sender }).drain();
      const flaky = await timeline("flaky");
      expect(flaky.at(-1)).toEqual([
        "job.died",
        {
          token: 1,
          reason: "exhausted",
          attempt: 1,
          failure: { category: "retryable", errorClass: "Error", code: null, status: 503 },
          at: expect.any(Number) as unknown,
        },
      ]);
      const refused = await timeline("refused");
      expect(refused.at(-1)?.[1]).toMatchObject({
        reason: "permanent",
        failure: { category: "permanent", errorClass: "Permanent", code: "VERQ_PERMANENT" },
      });
      expect(await queue.get("refused")).toMatchObject({
        state: "dead",
        reason: "permanent",
        lastFailure: { category: "permanent" },
      });
      expect(JSON.stringify([flaky, refused])).not.toContain(SECRET);
    });

    it("a failure report from a stale token is refused and changes nothing; the job's failure survives a redrive", async () => {
      await queue.enqueue({ id: "fenced", payload: null, maxAttempts: 3 });
      const first = await queue.claim("w1", { leaseMs: 1_000 });
      clock.advance(1_000);
      const second = await queue.claim("w2", { leaseMs: 1_000 });
      expect([first?.token, second?.token]).toEqual([1, 2]);
      const before = await queue.get("fenced");
      expect(await queue.fail("fenced", 1, new TypeError("late"))).toBe(false);
      expect(await queue.get("fenced")).toEqual(before);
      expect(await queue.fail("fenced", 2, new RangeError("x"))).toBe(true);
      expect(await queue.get("fenced")).toMatchObject({
        state: "leased",
        token: 2,
        attempts: 2,
        leaseUntil: before?.leaseUntil,
        lastFailure: { errorClass: "RangeError", token: 2, attempt: 2 },
      });
      expect(await queue.finish("fenced", 2, "permanent", { error: new RangeError("x") })).toBe(true);
      await queue.redrive("fenced", { note: "OPS-1" });
      expect(await queue.get("fenced")).toMatchObject({
        state: "pending",
        lastFailure: { category: "permanent", errorClass: "RangeError" },
      });
    });

    it("runOnce records the failure before it rethrows", async () => {
      await queue.enqueue({ id: "once", payload: null });
      const error = Object.assign(new Error("gateway"), { statusCode: 502 });
      await expect(
        queue.runOnce("w", () => {
          throw error;
        }),
      ).rejects.toBe(error);
      expect((await queue.get("once"))?.lastFailure).toMatchObject(describeFailure(error, "unexpected"));
    });
  });
}
