import { fingerprintRequest, isVerqError } from "@verq/core";
import { GuidLedger } from "@verq/store";
import { ENGINES, engineAvailable } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { eventually, ledgerSnapshot, startRelay, type RelayHarness } from "./support/relay-harness.ts";

const MIN_AGE = 60_000;
const DAY = 86_400_000;

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    let h: RelayHarness | undefined;
    afterEach(async () => {
      await h?.close();
      h = undefined;
    });

    describe("resolve: UNKNOWN settled only by the core's inquiry, only after the min age (SPEC G5)", () => {
      it("G5: resolve before the min age changes nothing (the core is still working); after it, found → DONE with the core's own answer", async () => {
        const relay = (h = await startRelay(engine, { coreTimeoutMs: 100 }));
        relay.core.delay(300);
        expect((await relay.send({ guid: "R-1", amount: 9 })).code).toBe("E901");
        const before = await ledgerSnapshot(relay.store);
        relay.clock.advance(MIN_AGE - 1);
        const early = await relay.relay.resolve({ minAgeMs: MIN_AGE });
        expect(early).toEqual({ done: [], failed: [], young: ["R-1"], errors: [] });
        expect(await ledgerSnapshot(relay.store)).toEqual(before);
        // Had it asked now, the core would have said "not found": it has not processed R-1 yet.
        expect(relay.core.calls("R-1")).toBe(0);
        await eventually(() => relay.core.calls("R-1") === 1, "the slow core to process R-1");
        relay.clock.advance(1);
        expect(await relay.relay.resolve({ minAgeMs: MIN_AGE })).toEqual({ done: ["R-1"], failed: [], young: [], errors: [] });
        const entry = await relay.entry("R-1");
        expect(entry).toMatchObject({ state: "DONE", code: "0000", response: relay.core.bank.inquire("R-1") });
        expect((await relay.ledger.history("R-1")).at(-1)).toMatchObject({ type: "guid.done", data: { via: "inquiry" } });
        expect((await relay.send({ guid: "R-1", amount: 9 })).text).toBe(entry?.response);
        expect(relay.core.calls("R-1")).toBe(1);
      });

      it("G5: after the min age, not found → FAILED; the resend then sends it once, with the same GUID", async () => {
        const relay = (h = await startRelay(engine, { coreTimeoutMs: 100 }));
        relay.core.loseRequests();
        expect((await relay.send({ guid: "R-2", amount: 9 })).code).toBe("E901");
        relay.core.loseRequests(false);
        relay.clock.advance(MIN_AGE);
        expect(await relay.relay.resolve({ minAgeMs: MIN_AGE })).toEqual({ done: [], failed: ["R-2"], young: [], errors: [] });
        expect(await relay.entry("R-2")).toMatchObject({ state: "FAILED", code: "E902", attempts: 1 });
        expect(await relay.send({ guid: "R-2", amount: 9 })).toMatchObject({ code: "0000", state: "DONE" });
        expect(relay.core.calls("R-2")).toBe(1);
      });

      it("G5: an inquiry error (503, connection refused, a bare 404) leaves the entry UNKNOWN", async () => {
        const relay = (h = await startRelay(engine, { coreTimeoutMs: 100 }));
        relay.core.dropAnswers();
        await relay.send({ guid: "R-3", amount: 9 });
        relay.core.dropAnswers(false).failInquiries();
        relay.clock.advance(MIN_AGE);
        const before = await ledgerSnapshot(relay.store);
        const unavailable = await relay.relay.resolve({ minAgeMs: MIN_AGE });
        expect(unavailable.errors).toEqual([{ guid: "R-3", reason: "HTTP 503" }]);
        await relay.core.refuseConnections();
        expect((await relay.relay.resolve({ minAgeMs: MIN_AGE })).errors).toEqual([{ guid: "R-3", reason: "ECONNREFUSED" }]);
        expect(await ledgerSnapshot(relay.store)).toEqual(before);
      });
    });

    describe("reprocess: only FAILED, same GUID, capped (SPEC G6)", () => {
      it("G6: reprocess sends FAILED entries with the same GUID and the stored request, and stops at the cap", async () => {
        const relay = (h = await startRelay(engine));
        await relay.core.refuseConnections();
        const rawA = '{"guid":"P-1", "amount": 11}';
        await relay.send(rawA);
        await relay.send({ guid: "P-2", amount: 12 });
        let report = await relay.relay.reprocess({ maxAttempts: 3 });
        expect(report).toMatchObject({ done: 0, notDone: 2, atCap: 0, skippedUnknown: 0 });
        report = await relay.relay.reprocess({ maxAttempts: 3 });
        expect(
          report.items.map((i) => [i.guid, i.outcome === "gone" ? "gone" : i.state, i.outcome === "gone" ? 0 : i.attempts]),
        ).toEqual([
          ["P-1", "FAILED", 3],
          ["P-2", "FAILED", 3],
        ]);
        report = await relay.relay.reprocess({ maxAttempts: 3 });
        expect(report).toMatchObject({ done: 0, notDone: 0, atCap: 2 });
        await relay.core.acceptConnections();
        expect(await relay.relay.reprocess({ maxAttempts: 3 })).toMatchObject({ done: 0, atCap: 2 });
        expect(relay.core.received).toBe(0);
        report = await relay.relay.reprocess({ maxAttempts: 4 });
        expect(report).toMatchObject({ done: 2, notDone: 0, atCap: 0 });
        expect(relay.core.bank.requests("P-1")).toEqual([rawA]);
        expect([relay.core.calls("P-1"), relay.core.calls("P-2")]).toEqual([1, 1]);
        expect(
          (await relay.ledger.history("P-1")).filter((e) => e.type === "guid.sent").map((e) => (e.data as { by: string }).by),
        ).toEqual(["claim", "reprocess", "reprocess", "reprocess"]);
      });

      it("G6: reprocess never takes UNKNOWN, even when the core is ready", async () => {
        const relay = (h = await startRelay(engine));
        relay.core.dropAnswers();
        await relay.send({ guid: "P-3", amount: 5 });
        relay.core.dropAnswers(false);
        const report = await relay.relay.reprocess({ maxAttempts: 10 });
        expect(report).toMatchObject({ done: 0, notDone: 0, skippedUnknown: 1 });
        expect(await relay.entry("P-3")).toMatchObject({ state: "UNKNOWN", attempts: 1 });
        expect(relay.core.calls("P-3")).toBe(1);
      });
    });

    describe("purge keeps what it must (SPEC G7)", () => {
      async function everyState(relay: RelayHarness) {
        const claim = (guid: string) => {
          const request = JSON.stringify({ guid, amount: 1 });
          return relay.ledger.receive({ guid, request, fingerprint: fingerprintRequest(JSON.parse(request)), maxAttempts: 5 });
        };
        await relay.send({ guid: "old-done", amount: 1 });
        relay.core.dropAnswers();
        await relay.send({ guid: "old-unknown", amount: 1 });
        relay.core.dropAnswers(false);
        await relay.core.refuseConnections();
        await relay.send({ guid: "old-failed", amount: 1 });
        await relay.core.acceptConnections();
        await claim("old-received");
        await claim("old-sent");
        await relay.ledger.send("old-sent");
        relay.clock.advance(8 * DAY);
        await relay.send({ guid: "young-done", amount: 1 });
      }

      it("G7: purge deletes DONE entries older than the retention with their events, audited; UNKNOWN, FAILED, RECEIVED, SENT and young DONE stay", async () => {
        const relay = (h = await startRelay(engine));
        await everyState(relay);
        const result = await relay.relay.purge({ retentionMs: 7 * DAY, resendWindowMs: DAY });
        expect(result).toEqual({ purged: 1, events: 3, kept: { RECEIVED: 1, SENT: 1, DONE: 0, UNKNOWN: 1, FAILED: 1 } });
        expect(await relay.entry("old-done")).toBeNull();
        await expect(relay.ledger.history("old-done")).rejects.toSatisfy(
          (e: unknown) => isVerqError(e) && (e.code as string) === "VERQ_UNKNOWN_GUID",
        );
        for (const guid of ["old-unknown", "old-failed", "old-received", "old-sent", "young-done"])
          expect(await relay.entry(guid), guid).not.toBeNull();
        const audit = await relay.ledger.purges();
        expect(audit.map((e) => e.data)).toEqual([
          { guids: ["old-done"], retentionMs: 7 * DAY, resendWindowMs: DAY, at: relay.clock.now() },
        ]);
        expect((await relay.relay.stats()).lastPurge).toEqual({ at: relay.clock.now(), count: 1 });
        // Years later, the undecided entries are still there: never deleted by age.
        relay.clock.advance(3_650 * DAY);
        expect(await relay.relay.purge({ retentionMs: 7 * DAY, resendWindowMs: DAY })).toMatchObject({
          purged: 1,
          kept: { UNKNOWN: 1, FAILED: 1, RECEIVED: 1, SENT: 1 },
        });
        expect((await relay.relay.stats()).byState).toEqual({ RECEIVED: 1, SENT: 1, DONE: 0, UNKNOWN: 1, FAILED: 1 });
      });

      it("G7: purge refuses a retention not longer than the resend window and changes nothing", async () => {
        const relay = (h = await startRelay(engine));
        await everyState(relay);
        const before = await ledgerSnapshot(relay.store);
        for (const [retentionMs, resendWindowMs] of [
          [DAY, DAY],
          [DAY, 2 * DAY],
        ] as const) {
          const error: unknown = await relay.relay.purge({ retentionMs, resendWindowMs }).catch((e: unknown) => e);
          expect(isVerqError(error) && (error.code as string)).toBe("VERQ_PURGE_RETENTION_TOO_SHORT");
        }
        expect(await ledgerSnapshot(relay.store)).toEqual(before);
      });

      it("G7: purge refuses a retention not longer than the resend window on an empty ledger too", async () => {
        const relay = (h = await startRelay(engine));
        const error: unknown = await relay.relay.purge({ retentionMs: DAY, resendWindowMs: DAY }).catch((e: unknown) => e);
        expect(isVerqError(error) && (error.code as string)).toBe("VERQ_PURGE_RETENTION_TOO_SHORT");
        expect(await relay.relay.purge({ retentionMs: 2 * DAY, resendWindowMs: DAY })).toMatchObject({ purged: 0 });
      });

      it("G7: purge works in batches and audits each batch; the ledger's projection still equals its events", async () => {
        const relay = (h = await startRelay(engine));
        for (let i = 0; i < 7; i++) await relay.send({ guid: `B-${i}`, amount: 1 });
        relay.clock.advance(2 * DAY);
        expect(await relay.ledger.purge({ retentionMs: DAY, resendWindowMs: 1, batchSize: 3 })).toMatchObject({
          purged: 7,
          events: 21,
        });
        expect((await relay.ledger.purges()).map((e) => e.data.guids.length)).toEqual([3, 3, 1]);
        expect((await relay.relay.stats()).total).toBe(0);
      });
    });

    describe("recovery sweep, durability and the operator's view", () => {
      it("recovery sweep: RECEIVED → FAILED (certainly not sent) and SENT → UNKNOWN (maybe sent), only once older than the limit", async () => {
        const relay = (h = await startRelay(engine));
        const claim = (guid: string) => {
          const request = JSON.stringify({ guid, amount: 1 });
          return relay.ledger.receive({ guid, request, fingerprint: fingerprintRequest(JSON.parse(request)), maxAttempts: 5 });
        };
        await claim("S-1");
        await claim("S-2");
        await relay.ledger.send("S-2");
        relay.clock.advance(999);
        expect(await relay.relay.recover(1_000)).toEqual({ failed: [], unknown: [], young: 2 });
        relay.clock.advance(1);
        expect(await relay.relay.recover(1_000)).toEqual({ failed: ["S-1"], unknown: ["S-2"], young: 0 });
        expect(await relay.send({ guid: "S-1", amount: 1 })).toMatchObject({ code: "0000" });
        expect(await relay.send({ guid: "S-2", amount: 1 })).toMatchObject({ code: "E901" });
        expect(relay.core.totalCalls).toBe(1);
      });

      it("G8: the ledger is durable: closed and reopened, every entry answers as before, and a rebuild from the events equals it", async () => {
        const relay = (h = await startRelay(engine, { coreTimeoutMs: 100 }));
        const done = await relay.send({ guid: "D-1", amount: 4 });
        relay.core.dropAnswers();
        await relay.send({ guid: "D-2", amount: 4 });
        const before = await ledgerSnapshot(relay.store);
        await relay.store.close();
        const reopened = await relay.database.open();
        try {
          expect(await ledgerSnapshot(reopened)).toEqual(before);
          const ledger = new GuidLedger(reopened, { clock: relay.clock });
          expect(await ledger.rebuild()).toEqual({ entries: 2, events: 6 });
          expect(await ledgerSnapshot(reopened)).toEqual(before);
          expect((await ledger.get("D-1"))?.response).toBe(done.text);
        } finally {
          await reopened.close();
        }
      });

      it("show and stats: the entry with its timeline; counts by state, oldest UNKNOWN and FAILED, attempts", async () => {
        const relay = (h = await startRelay(engine));
        await relay.send({ guid: "V-1", amount: 1 });
        relay.clock.advance(10);
        relay.core.dropAnswers();
        await relay.send({ guid: "V-2", amount: 1 });
        relay.core.dropAnswers(false);
        await relay.core.refuseConnections();
        relay.clock.advance(10);
        await relay.send({ guid: "V-3", amount: 1 });
        await relay.send({ guid: "V-3", amount: 1 });
        const shown = await relay.relay.show("V-3");
        expect(shown.entry).toMatchObject({ guid: "V-3", state: "FAILED", code: "E902", attempts: 2 });
        expect(shown.events.map((e) => e.type)).toEqual([
          "guid.received",
          "guid.sent",
          "guid.failed",
          "guid.sent",
          "guid.failed",
        ]);
        const stats = await relay.relay.stats();
        expect(stats).toMatchObject({
          total: 3,
          byState: { RECEIVED: 0, SENT: 0, DONE: 1, UNKNOWN: 1, FAILED: 1 },
          oldestUnknown: { guid: "V-2" },
          oldestFailed: { guid: "V-3", attempts: 2 },
          attempts: { total: 4, max: 2, retried: 1 },
          lastPurge: null,
        });
        await expect(relay.relay.show("nope")).rejects.toThrow(/no entry for GUID nope/);
      });
    });
  });
}
