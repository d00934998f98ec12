import { ManualClock, fingerprintRequest, type CoreOutcome, type VerqErrorCode } from "@verq/core";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GuidLedger, type VerqStore } from "../src/index.ts";
import { expectRefusedUnchanged } from "./helpers/refused-unchanged.ts";

/*
 * An operator acts on the ledger entry they saw: a resolve or a reprocess given the version the
 * page was drawn at is refused with VERQ_ENTRY_CHANGED, changing nothing, once the entry has
 * moved on; at the version seen it is decided by the guid machine as without one.
 */
for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] ledger changes given the version seen`, () => {
    const T0 = 1_700_000_000_000;
    const MIN_AGE = 60_000;
    let database: TestDatabase;
    let store: VerqStore;
    let clock: ManualClock;
    let ledger: GuidLedger;

    beforeEach(async () => {
      database = await createTestDatabase(engine);
      store = await database.open();
      clock = new ManualClock(T0);
      ledger = new GuidLedger(store, { clock });
    });
    afterEach(async () => {
      await store.close();
      await database.dispose();
    });

    const expectRefused = (call: () => Promise<unknown>, code: VerqErrorCode) =>
      expectRefusedUnchanged(store, call, code, ["ledger", "events"]);

    /** An entry sent once, whose call ended with `outcome`; its version. */
    async function sentOnce(guid: string, outcome: CoreOutcome): Promise<number> {
      const request = JSON.stringify({ guid, amount: 5 });
      await ledger.receive({ guid, request, fingerprint: fingerprintRequest(JSON.parse(request)), maxAttempts: 5 });
      await ledger.send(guid);
      const change = await ledger.record(guid, 1, outcome);
      return change.entry.version;
    }

    it("a resolve at the version seen settles the entry; one drawn before it moved on is refused", async () => {
      const seen = await sentOnce("U-1", { kind: "no-answer" });
      clock.advance(MIN_AGE);
      const found = { kind: "found", code: "0000", response: '{"guid":"U-1","code":"0000"}' } as const;
      await expectRefused(() => ledger.resolve("U-1", found, MIN_AGE, { expectedVersion: seen - 1 }), "VERQ_ENTRY_CHANGED");
      await expectRefused(() => ledger.resolve("U-1", found, MIN_AGE, { expectedVersion: seen + 1 }), "VERQ_ENTRY_CHANGED");
      const change = await ledger.resolve("U-1", found, MIN_AGE, { expectedVersion: seen });
      expect(change).toMatchObject({ accepted: true, entry: { state: "DONE", version: seen + 1 } });
      // The same form again: the entry has moved on.
      await expectRefused(() => ledger.resolve("U-1", found, MIN_AGE, { expectedVersion: seen }), "VERQ_ENTRY_CHANGED");
    });

    it("a reprocess at the version seen sends the entry again; one drawn before another reprocess is refused", async () => {
      const seen = await sentOnce("F-1", { kind: "not-sent" });
      const first = await ledger.reprocess("F-1", 5, { expectedVersion: seen });
      expect(first).toMatchObject({ accepted: true, entry: { state: "SENT", attempts: 2 } });
      await ledger.record("F-1", 2, { kind: "not-sent" });
      // FAILED again and below the cap, as when it was seen: only the version tells it moved on.
      expect(await ledger.get("F-1")).toMatchObject({ state: "FAILED", attempts: 2 });
      await expectRefused(() => ledger.reprocess("F-1", 5, { expectedVersion: seen }), "VERQ_ENTRY_CHANGED");
      const now = (await ledger.get("F-1"))?.version ?? 0;
      expect(await ledger.reprocess("F-1", 5, { expectedVersion: now })).toMatchObject({ accepted: true });
    });

    it("at the version seen, the guid machine still decides: a refusal is a refusal, not a change", async () => {
      const seen = await sentOnce("F-2", { kind: "not-sent" });
      const refused = await ledger.reprocess("F-2", 1, { expectedVersion: seen });
      expect(refused).toMatchObject({ accepted: false, refusal: "attempts-exhausted" });
      const young = await ledger.resolve("F-2", { kind: "not-found" }, MIN_AGE, { expectedVersion: seen });
      expect(young.accepted).toBe(false);
    });

    it("a version that is not a whole number from 1 is refused before anything is read; an unknown GUID stays VERQ_UNKNOWN_GUID", async () => {
      await sentOnce("F-3", { kind: "not-sent" });
      for (const expectedVersion of [0, -1, 1.5, Number.NaN]) {
        await expectRefused(() => ledger.reprocess("F-3", 5, { expectedVersion }), "VERQ_INVALID_ARGUMENT");
        await expectRefused(() => ledger.resolve("F-3", { kind: "not-found" }, 0, { expectedVersion }), "VERQ_INVALID_ARGUMENT");
      }
      await expectRefused(() => ledger.reprocess("NOPE-1", 5, { expectedVersion: 3 }), "VERQ_UNKNOWN_GUID");
    });

    it("without a version, the changes are as before", async () => {
      await sentOnce("F-4", { kind: "not-sent" });
      expect(await ledger.reprocess("F-4", 5)).toMatchObject({ accepted: true, entry: { state: "SENT" } });
    });
  });
}
