import type { LedgerEntry } from "@verq/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditRelaySoak, RELAY_FAILPOINTS, relaySoakPassed, runRelayKillSoak } from "../../../../stress/relay-kill-soak.ts";
import { createTestDatabase, ENGINES, engineAvailable, TestBank, type TestDatabase } from "@verq/testing";

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    let database: TestDatabase;
    beforeEach(async () => {
      database = await createTestDatabase(engine, "ledger.sqlite");
    });
    afterEach(async () => {
      await database.dispose();
    });

    it("G1/G3/G5/G6/G8/G9 relay kill soak: a relay process killed at each failpoint and at random under a resending channel; after the sweep, resolve and reprocess every GUID is DONE and the core processed each once", async () => {
      const report = await runRelayKillSoak({ db: database.db, guids: 120, kills: 4, concurrency: 8, recoverAfterMs: 3_000 });
      console.log(`[soak:relay:${engine}] ${JSON.stringify(report)}`);
      for (const name of RELAY_FAILPOINTS) expect(report.killsBy[name], `kills at ${name}`).toBeGreaterThanOrEqual(1);
      expect(report.engine).toBe(engine);
      expect(report.unexpectedExits).toBe(0);
      // The relay that died at relay.afterClaim left a RECEIVED entry, the one at relay.afterCoreCall
      // a SENT entry the core had processed: the sweep and resolve must have settled both kinds.
      expect(report.recoveredReceivedToFailed).toBeGreaterThanOrEqual(1);
      expect(report.recoveredSentToUnknown).toBeGreaterThanOrEqual(1);
      expect(report.resolvedDone).toBeGreaterThanOrEqual(1);
      expect(report.audit).toEqual({
        processedTwice: [],
        notDone: [],
        doneWithoutCall: [],
        answerMismatches: [],
        strayCalls: 0,
        expectedBalance: report.audit.expectedBalance,
        balanceMatches: true,
        ok: true,
      });
      // The soak ends with `verq check` of the ledger's store, as a child process: nothing found.
      expect(report.storeCheck).toMatchObject({ exitCode: 0, ok: true, findings: [], findingCount: 0 });
      expect(report.storeCheck.events).toBeGreaterThanOrEqual(120 * 3);
      expect(report.coreCalls).toBe(120);
      expect(report.coreCallsPerGuidMax).toBe(1);
      expect(relaySoakPassed(report)).toBe(true);
    }, 120_000);
  });
}

it("the soak's audit catches a GUID processed twice and a GUID not DONE", () => {
  const bank = new TestBank(1_000);
  const request = (guid: string) => JSON.stringify({ guid, amount: 10 });
  const amounts = new Map([
    ["a", 10],
    ["b", 10],
  ]);
  bank.process(request("a"));
  bank.process(request("b"));
  type Entry = Pick<LedgerEntry, "state" | "response">;
  const done = (guid: string): Entry => ({ state: "DONE", response: bank.inquire(guid) });
  const answers = new Map([
    ["a", bank.inquire("a") ?? ""],
    ["b", bank.inquire("b") ?? ""],
  ]);
  const clean = auditRelaySoak({
    amounts,
    bank,
    openingBalance: 1_000,
    entries: new Map([
      ["a", done("a")],
      ["b", done("b")],
    ]),
    answers,
  });
  expect(clean).toMatchObject({ processedTwice: [], notDone: [], balanceMatches: true, ok: true });

  bank.process(request("a")); // a second debit for "a", as a relay that resends a SENT entry would cause
  const broken = auditRelaySoak({
    amounts,
    bank,
    openingBalance: 1_000,
    entries: new Map<string, Entry>([
      ["a", done("a")],
      ["b", { state: "SENT", response: null }],
    ]),
    answers,
  });
  expect(broken.processedTwice).toEqual(["a"]);
  expect(broken.notDone).toEqual(["b"]);
  expect(broken.balanceMatches).toBe(false);
  expect(broken.ok).toBe(false);
});
