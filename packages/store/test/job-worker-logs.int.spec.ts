import { ManualClock } from "@verq/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { JobQueue, JobWorker, type ClaimedJob, type VerqLogger, type VerqStore } from "../src/index.ts";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";

/** Stands in every payload: it must never reach a log line. */
const SECRET = "PAYLOAD-SECRET-91c2";

interface Logged {
  readonly level: "error" | "warn" | "info" | "debug";
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

/** A logger that keeps what it is given, as a structural {@link VerqLogger} (no logging library). */
function keepingLogger(): { logger: VerqLogger; lines: Logged[] } {
  const lines: Logged[] = [];
  const at =
    (level: Logged["level"]) =>
    (fields: Record<string, unknown>, message: string): void => {
      lines.push({ level, message, fields: structuredClone(fields) });
    };
  return { logger: { error: at("error"), warn: at("warn"), info: at("info"), debug: at("debug") }, lines };
}

const LEASE_MS = 60_000;

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] JobWorker logs`, () => {
    let database: TestDatabase;
    let store: VerqStore;
    let clock: ManualClock;
    let queue: JobQueue;

    beforeEach(async () => {
      database = await createTestDatabase(engine);
      store = await database.open();
      clock = new ManualClock(Date.now());
      queue = new JobQueue(store, { clock });
    });
    afterEach(async () => {
      await store.close();
      await database.dispose();
    });

    it("a lost lease: the next worker logs the takeover (and the expiry of a last attempt) at warn; the late worker's outcome is logged as a stale finish refused; never a payload", async () => {
      await queue.enqueue({ id: "taken", payload: { secret: SECRET } });
      await queue.enqueue({ id: "last", payload: { secret: SECRET }, maxAttempts: 1 });
      // w1 claims both and hangs in its sends (its heartbeats would come only after 20 s).
      const late = keepingLogger();
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      let sending: () => void = () => undefined;
      const bothSending = new Promise<void>((resolve) => (sending = resolve));
      const inFlight: ClaimedJob[] = [];
      const w1 = new JobWorker(queue, {
        owner: "w1",
        concurrency: 2,
        leaseMs: LEASE_MS,
        logger: late.logger,
        sender: async (job) => {
          inFlight.push(job);
          if (inFlight.length === 2) sending();
          await released;
          return true;
        },
      });
      const w1Run = w1.drain({ limit: 2 });
      await bothSending;
      expect(
        late.lines
          .filter((l) => l.message === "claimed")
          .map((l) => [l.level, l.fields.id, l.fields.token, l.fields.owner, l.fields.leaseUntil, l.fields.attempt])
          .sort(),
      ).toEqual([
        ["debug", "last", 1, "w1", clock.now() + LEASE_MS, 1],
        ["debug", "taken", 1, "w1", clock.now() + LEASE_MS, 1],
      ]);

      // At the leases' end w2 takes "taken" over with token 2; "last" had no attempt left: dead.
      clock.advance(LEASE_MS);
      const next = keepingLogger();
      const w2 = new JobWorker(queue, { owner: "w2", leaseMs: LEASE_MS, logger: next.logger, sender: () => true });
      expect(await w2.drain()).toMatchObject({ claimed: 1, ok: 1 });
      expect(next.lines.filter((l) => l.level === "warn")).toEqual([
        {
          level: "warn",
          message: "lease expired; taken over by a new claim",
          fields: { id: "taken", token: 1, owner: "w1", state: "leased", by: "w2" },
        },
        {
          level: "warn",
          message: "lease expired on the last attempt; the job is dead",
          fields: { id: "last", token: 1, owner: "w1", state: "dead", by: "w2" },
        },
      ]);
      expect(next.lines.filter((l) => l.message === "outcome recorded")).toEqual([
        {
          level: "info",
          message: "outcome recorded",
          fields: {
            id: "taken",
            token: 2,
            outcome: "ok",
            accepted: true,
            queue: "default",
            kind: null,
            owner: "w2",
            sendMs: expect.any(Number) as unknown,
            durationMs: expect.any(Number) as unknown,
          },
        },
      ]);

      // w1 comes back: both its outcomes are refused as stale, each logged at warn.
      release();
      expect(await w1Run).toMatchObject({ refused: 2, ok: 0 });
      const refused = late.lines.filter((l) => l.level === "warn");
      expect(refused.map((l) => [l.message, l.fields.id, l.fields.token, l.fields.outcome, l.fields.accepted]).sort()).toEqual([
        ["stale finish refused: the lease was lost and another worker holds the job", "last", 1, "ok", false],
        ["stale finish refused: the lease was lost and another worker holds the job", "taken", 1, "ok", false],
      ]);
      for (const line of refused) expect(line.fields.durationMs as number).toBeGreaterThanOrEqual(line.fields.sendMs as number);

      expect(JSON.stringify([late.lines, next.lines])).not.toContain(SECRET);
    });

    it("without a logger, a failure is one JSON line on stderr with its identifiers; claims and outcomes write nothing there", async () => {
      await queue.enqueue({ id: "loud", payload: { secret: SECRET } });
      await queue.enqueue({ id: "fine", payload: null });
      const written: string[] = [];
      const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
        written.push(String(chunk));
        return true;
      });
      try {
        await new JobWorker(queue, {
          owner: "w",
          sender: (job) => {
            if (job.id === "loud") throw new RangeError(SECRET);
            return true;
          },
        }).drain();
      } finally {
        spy.mockRestore();
      }
      const lines = written
        .join("")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines).toEqual([
        expect.objectContaining({ level: "error", id: "loud", token: 1, errorClass: "RangeError", failure: "unexpected" }),
      ]);
      expect(written.join("")).not.toContain(SECRET);
    });

    it("an unexpected send failure is logged once at error with its identifiers, never its text; logger null silences the worker and it works the same", async () => {
      await queue.enqueue({ id: "bad", payload: { secret: SECRET } });
      const { logger, lines } = keepingLogger();
      const report = await new JobWorker(queue, { owner: "w", logger, sender: () => ({ ok: SECRET }) }).drain({ limit: 1 });
      expect(report).toMatchObject({ claimed: 1, leftLeased: 1, errors: 1 });
      expect(lines.filter((l) => l.level === "error")).toEqual([
        {
          level: "error",
          message: "handler failed; the failure is recorded and the job stays leased until its lease expires (J5)",
          fields: {
            id: "bad",
            token: 1,
            owner: "w",
            attempt: 1,
            failure: "bad-ack",
            errorClass: "BadAck",
            errorCode: "VERQ_BAD_ACK",
            httpStatus: null,
            queue: "default",
            kind: null,
            handlerMs: expect.any(Number) as unknown,
          },
        },
      ]);
      expect(JSON.stringify(lines)).not.toContain(SECRET);

      const thrown = new TypeError(`cannot read ${SECRET}`);
      await queue.enqueue({ id: "throws", payload: null });
      const again = keepingLogger();
      await new JobWorker(queue, {
        owner: "w",
        logger: again.logger,
        sender: () => {
          throw thrown;
        },
      }).drain({ limit: 1 });
      expect(again.lines.filter((l) => l.level === "error").map((l) => l.fields["errorClass"])).toEqual(["TypeError"]);
      expect(JSON.stringify(again.lines)).not.toContain(SECRET);

      await queue.enqueue({ id: "quiet", payload: null });
      expect(await new JobWorker(queue, { owner: "w", logger: null, sender: () => true }).drain()).toMatchObject({
        claimed: 1,
        ok: 1,
      });
    });
  });
}
