import { ManualClock } from "@verq/core";
import { GuidLedger, VerqStore } from "@verq/store";
import {
  ENGINES,
  TestCore,
  createTestDatabase,
  engineAvailable,
  holdWriteLock,
  type Engine,
  type TestDatabase,
} from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpCoreClient } from "../../src/relay/http-core-client.ts";
import { RelayService } from "../../src/relay/relay-service.ts";
import { eventually, startRelay, type RelayHarness } from "./support/relay-harness.ts";

/** A store that counts the write transactions it runs: each one `BEGIN IMMEDIATE … COMMIT` on SQLite. */
class CountingStore extends VerqStore {
  transactions = 0;

  constructor(store: VerqStore) {
    super(store.db, store.dialect, store.path);
  }

  override transaction<T>(work: Parameters<VerqStore["transaction"]>[0], attempts?: number): Promise<T> {
    this.transactions++;
    return super.transaction(work, attempts) as Promise<T>;
  }
}

const codeOf = (text: string): unknown => (JSON.parse(text) as { code?: unknown }).code;

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    /** A relay (no HTTP edge of its own) over a counting store on a fresh test database, in front of a real test core. */
    async function countingRelay(which: Engine) {
      const database: TestDatabase = await createTestDatabase(which, "ledger.sqlite");
      cleanups.push(() => database.dispose());
      const store = new CountingStore(await database.open());
      cleanups.push(() => store.close());
      const core = await TestCore.start();
      cleanups.push(() => core.close());
      const ledger = new GuidLedger(store, { clock: new ManualClock(1_767_258_000_000) });
      const relay = new RelayService({ ledger, core: createHttpCoreClient({ url: core.url }) });
      return { store, core, ledger, relay };
    }

    describe("group commit: concurrent new GUIDs share transactions (SPEC G4 kept for each)", () => {
      it("G4 G9: sixty new GUIDs at once: each reaches the core exactly once, each is answered with its own result; claims and SENT steps share transactions", async () => {
        const { store, core, ledger, relay } = await countingRelay(engine);
        const guids = Array.from({ length: 60 }, (_, i) => `GC-${i}`);
        const replies = await Promise.all(guids.map((guid, i) => relay.transfer(JSON.stringify({ guid, amount: i + 1 }))));
        replies.forEach((reply, i) => {
          expect(reply).toMatchObject({ status: 200, state: "DONE", replayed: false });
          expect(JSON.parse(reply.body)).toMatchObject({ guid: guids[i], code: "0000" });
        });
        for (const guid of guids) expect(core.calls(guid)).toBe(1);
        // Alone, each new GUID takes three write transactions (claim, SENT, record): 180 here. The
        // claims and the SENT steps, submitted together, share transactions; how many records do
        // depends on how the core's answers arrive.
        expect(store.transactions).toBeLessThan(2 * guids.length);
        for (const [i, guid] of guids.entries()) {
          const history = await ledger.history(guid);
          expect(history.map((e) => e.type)).toEqual(["guid.received", "guid.sent", "guid.done"]);
          expect(await ledger.get(guid)).toMatchObject({
            state: "DONE",
            attempts: 1,
            request: JSON.stringify({ guid, amount: i + 1 }),
          });
        }
        expect(core.bank.balance).toBe(1_000_000 - guids.reduce((sum, _, i) => sum + i + 1, 0));
      });

      it("G1 G4: each GUID sent three times at once, one with another payload: one core call per GUID, one owner, E903 or the same bytes to the same payload, E422 to the other", async () => {
        const { core, ledger, relay } = await countingRelay(engine);
        core.delay(20);
        const guids = Array.from({ length: 20 }, (_, i) => `DUP-${i}`);
        const sends = guids.flatMap((guid) => [
          { guid, text: JSON.stringify({ guid, amount: 5 }) },
          { guid, text: JSON.stringify({ guid, amount: 5 }) },
          { guid, text: JSON.stringify({ guid, amount: 6 }) },
        ]);
        const replies = await Promise.all(sends.map((s) => relay.transfer(s.text)));
        for (const guid of guids) {
          expect(core.calls(guid)).toBe(1);
          const entry = await ledger.get(guid);
          expect(entry?.state).toBe("DONE");
          const mine = sends.map((s, i) => ({ ...s, reply: replies[i] })).filter((s) => s.guid === guid);
          for (const { text, reply } of mine) {
            if (reply === undefined) throw new Error("no reply");
            if (text === entry?.request) {
              expect(reply.status).toBe(200);
              expect(["0000", "E903"]).toContain(codeOf(reply.body));
              if (codeOf(reply.body) === "0000") expect(reply.body).toBe(entry.response);
            } else {
              expect(reply.status).toBe(422);
              expect(codeOf(reply.body)).toBe("E422");
            }
          }
          // Exactly one request made the core call and got its answer first-hand.
          expect(
            mine.filter((s) => s.reply?.status === 200 && s.reply.replayed === false && codeOf(s.reply.body) === "0000"),
          ).toHaveLength(1);
        }
      });
    });

    describe("a repeat is a read: it needs no write transaction (SPEC G3)", () => {
      let h: RelayHarness | undefined;
      afterEach(async () => {
        await h?.close();
        h = undefined;
      });

      it("G3: DONE, in-flight, UNKNOWN and another payload are answered while another connection holds the write lock; the core is not called", async () => {
        h = await startRelay(engine, { coreTimeoutMs: 30_000 });
        const relay = h;
        const done = await relay.send({ guid: "R-DONE", amount: 7 });
        expect(done.code).toBe("0000");
        relay.core.dropAnswers();
        const unknown = await relay.send({ guid: "R-UNKNOWN", amount: 8 });
        expect(unknown).toMatchObject({ code: "E901", state: "UNKNOWN" });
        relay.core.dropAnswers(false).delay(3_000);
        const owner = relay.send({ guid: "R-SENT", amount: 9 });
        await eventually(() => relay.core.received === 3, "R-SENT to reach the core");
        expect((await relay.entry("R-SENT"))?.state).toBe("SENT");

        // Another connection takes the write lock (see holdWriteLock): readers go on, writers wait.
        const release = await holdWriteLock(relay.database);
        try {
          const again = await relay.send({ guid: "R-DONE", amount: 7 });
          expect(again).toMatchObject({ status: 200, text: done.text, state: "DONE", replayed: "true" });
          expect(await relay.send({ guid: "R-SENT", amount: 9 })).toMatchObject({ status: 200, code: "E903", state: "SENT" });
          expect(await relay.send({ guid: "R-UNKNOWN", amount: 8 })).toMatchObject({
            status: 200,
            code: "E901",
            state: "UNKNOWN",
          });
          expect(await relay.send({ guid: "R-DONE", amount: 70 })).toMatchObject({ status: 422, code: "E422" });
          expect(relay.core.received).toBe(3);
        } finally {
          await release();
        }
        expect((await owner).code).toBe("0000");
      });
    });
  });
}

// SQLite only: its busy timeout turns a claim that meets the held write lock into
// VERQ_STORE_BUSY at once; on PostgreSQL the claim would wait for the lock instead.
describe("[sqlite] a repeat is a read: the control", () => {
  let h: RelayHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("control: while the write lock is held elsewhere, a new GUID cannot be claimed (the claim writes) and is never sent", async () => {
    h = await startRelay("sqlite");
    const relay = h;
    const busyFast = await relay.database.open({ busyTimeoutMs: 20 });
    const ledger = new GuidLedger(busyFast, { clock: relay.clock });
    const fast = new RelayService({ ledger, core: createHttpCoreClient({ url: relay.core.url }) });
    const release = await holdWriteLock(relay.database);
    try {
      await expect(fast.transfer(JSON.stringify({ guid: "R-NEW", amount: 1 }))).rejects.toMatchObject({
        code: "VERQ_STORE_BUSY",
      });
      expect(relay.core.calls("R-NEW")).toBe(0);
    } finally {
      await release();
      await busyFast.close();
    }
    expect(await relay.entry("R-NEW")).toBeNull();
  });
});
