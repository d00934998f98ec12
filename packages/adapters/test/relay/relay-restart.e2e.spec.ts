import { GuidLedger, openStore } from "@verq/store";
import { afterEach, describe, expect, it } from "vitest";
import {
  ENGINES,
  createTestDatabase,
  engineAvailable,
  runVerq,
  startRelayProcess,
  TestCore,
  type RelayProcess,
} from "@verq/testing";
import { eventually, sendTo } from "./support/relay-harness.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function stateOf(db: string, guid: string): Promise<string | null> {
  const store = await openStore(db);
  try {
    return (await new GuidLedger(store).get(guid))?.state ?? null;
  } finally {
    await store.close();
  }
}

/** Sends one request to a relay that will crash at a failpoint; the channel gets no answer. */
async function crashAt(failpoint: string, db: string, core: TestCore, guid: string): Promise<void> {
  const relay: RelayProcess = await startRelayProcess(db, core.url, { failpoints: `${failpoint}=exit(73)` });
  cleanups.push(() => relay.stop());
  const answer: unknown = await sendTo(relay.url, { guid, amount: 100 }).catch((e: unknown) => e);
  expect(answer, `the channel gets no answer from a relay dying at ${failpoint}`).toBeInstanceOf(Error);
  expect(await relay.exited).toEqual({ code: 73, signal: null });
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    describe("a relay restarted mid-way loses nothing (SPEC G8, failpoints relay.*, real processes on 127.0.0.1)", () => {
      it("G8: crashes after the claim, after the core call and after the record; the restarted relay and resolve settle each without a second debit", async () => {
        const database = await createTestDatabase(engine, "ledger.sqlite");
        cleanups.push(() => database.dispose());
        const { db } = database;
        const core = await TestCore.start();
        cleanups.push(() => core.close());

        // 1. relay.afterClaim: the entry is RECEIVED, the core never called.
        await crashAt("relay.afterClaim", db, core, "X-1");
        expect(await stateOf(db, "X-1")).toBe("RECEIVED");
        // 2. relay.afterCoreCall: the core debited, the relay died before recording it: SENT.
        await crashAt("relay.afterCoreCall", db, core, "X-2");
        expect(await stateOf(db, "X-2")).toBe("SENT");
        // 3. relay.afterRecord: DONE is recorded, the channel never got the answer.
        await crashAt("relay.afterRecord", db, core, "X-3");
        expect(await stateOf(db, "X-3")).toBe("DONE");
        expect([core.calls("X-1"), core.calls("X-2"), core.calls("X-3")]).toEqual([0, 1, 1]);

        const relay = await startRelayProcess(db, core.url);
        cleanups.push(() => relay.stop());
        // The sweep of each relay that starts (and then every half --recover-after): RECEIVED →
        // FAILED (never sent), SENT → UNKNOWN (maybe sent), once 1s old. Until then a resend of X-1
        // or X-2 gets E903.
        await eventually(
          async () => (await stateOf(db, "X-1")) === "FAILED" && (await stateOf(db, "X-2")) === "UNKNOWN",
          "the recovery sweep",
          10_000,
        );
        // X-3's answer was recorded before the crash: the resend gets it, byte for byte.
        const x3 = await sendTo(relay.url, { guid: "X-3", amount: 100 });
        expect(x3.text).toBe(core.bank.inquire("X-3"));
        const x1 = await sendTo(relay.url, { guid: "X-1", amount: 100 });
        expect([x1.code, x1.state]).toEqual(["0000", "DONE"]);
        expect((await sendTo(relay.url, { guid: "X-2", amount: 100 })).code).toBe("E901");

        const resolved = await runVerq(["relay", "resolve", "--db", db, "--core", core.url, "--min-age", "1ms", "--json"]);
        expect(resolved.status).toBe(0);
        expect(JSON.parse(resolved.stdout)).toEqual({ done: ["X-2"], failed: [], young: [], errors: [] });
        const x2 = await sendTo(relay.url, { guid: "X-2", amount: 100 });
        expect(x2.text).toBe(core.bank.inquire("X-2"));

        expect([core.calls("X-1"), core.calls("X-2"), core.calls("X-3")]).toEqual([1, 1, 1]);
        expect(core.bank.balance).toBe(1_000_000 - 300);
        await relay.stop();
        expect(await relay.exited).toEqual({ code: 0, signal: null });
      });
    });
  });
}
