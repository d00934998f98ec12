import { ManualClock, classifyCoreCall, isVerqError } from "@verq/core";
import { ENGINES, engineAvailable, type Engine } from "@verq/testing";
import { describe, expect, it } from "vitest";
import { EventSubscriptions, GuidLedger, JobQueue, checkStore, readAllEvents, type StoredEvent } from "../src/index.ts";
import { saveCheckpoint } from "../src/sql/subscriptions/saveCheckpoint.ts";
import { gapScenario, positions, sleep, throwingHandlerScenario, until } from "./helpers/subscription-scenarios.ts";
import { storesOnOneDatabase } from "./helpers/fresh-store.ts";

const stores = storesOnOneDatabase();
const open = (engine: Engine) => stores.open(engine);

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] E1 subscriptions`, () => {
    it("catches up from the start, then follows live, in position order, exactly the log", async () => {
      const store = await open(engine);
      const queue = new JobQueue(store, { clock: new ManualClock() });
      await queue.enqueueMany([1, 2, 3].map((i) => ({ id: `before-${i}`, payload: { i } })));
      const seen: StoredEvent[] = [];
      const subscription = new EventSubscriptions(store).subscribe({
        name: "audit",
        batchSize: 2,
        pollMs: 20,
        handle: (batch) => void seen.push(...batch),
      });
      await until(() => seen.length === 3, "the catch-up");
      for (const i of [4, 5]) await queue.enqueue({ id: `live-${i}`, payload: { i } });
      await until(() => seen.length === 5, "the live events");
      await subscription.stop();
      await subscription.done;
      const log = await readAllEvents(store.db);
      expect(seen).toEqual(log);
      expect(subscription.position).toBe(log.at(-1)?.position);
      expect(await new EventSubscriptions(store).checkpoint("audit")).toMatchObject({
        name: "audit",
        position: log.at(-1)?.position,
      });
    });

    it("resumes after its checkpoint; `from` counts only for a subscriber that has none", async () => {
      const store = await open(engine);
      const queue = new JobQueue(store, { clock: new ManualClock() });
      await queue.enqueueMany([1, 2, 3, 4].map((i) => ({ id: `j-${i}`, payload: { i } })));
      const subscriptions = new EventSubscriptions(store);
      const first: StoredEvent[] = [];
      await subscriptions.subscribe({ name: "p", from: 2, live: false, handle: (b) => void first.push(...b) }).done;
      expect(positions(first)).toEqual([2, 3, 4]);
      await queue.enqueue({ id: "j-5", payload: {} });
      const second: StoredEvent[] = [];
      await subscriptions.subscribe({ name: "p", from: 1, live: false, handle: (b) => void second.push(...b) }).done;
      expect(positions(second)).toEqual([5]);
      // Without a name nothing is kept: `from` every time.
      const anonymous: StoredEvent[] = [];
      await subscriptions.subscribe({ from: 4, live: false, handle: (b) => void anonymous.push(...b) }).done;
      expect(positions(anonymous)).toEqual([4, 5]);
      expect((await subscriptions.checkpoints()).map((c) => c.name)).toEqual(["p"]);
    });

    it("delivers only the stream types asked for", async () => {
      const store = await open(engine);
      const clock = new ManualClock();
      await new JobQueue(store, { clock }).enqueue({ id: "j", payload: {} });
      const ledger = new GuidLedger(store, { clock });
      await ledger.receive({ guid: "G-1", request: '{"guid":"G-1"}', fingerprint: "f", maxAttempts: 3 });
      await ledger.send("G-1");
      await ledger.record(
        "G-1",
        1,
        classifyCoreCall("G-1", { kind: "answered", status: 200, body: '{"guid":"G-1","code":"0000"}' }),
      );
      const seen: StoredEvent[] = [];
      await new EventSubscriptions(store).subscribe({ types: ["guid"], live: false, handle: (b) => void seen.push(...b) }).done;
      expect(seen.length).toBeGreaterThan(0);
      expect(seen).toEqual(await readAllEvents(store.db, "guid"));
    });

    it("a handler that throws stops the subscription, keeps the checkpoint before its batch, and the batch comes again", async () => {
      await throwingHandlerScenario(await open(engine));
    });

    it("a checkpoint never goes back, whoever writes it", async () => {
      const store = await open(engine);
      expect(await saveCheckpoint(store.db, "c", 10, 1)).toBe(true);
      expect(await saveCheckpoint(store.db, "c", 5, 2)).toBe(false);
      expect(await saveCheckpoint(store.db, "c", 10, 3)).toBe(false);
      expect(await new EventSubscriptions(store).checkpoint("c")).toEqual({ name: "c", position: 10, updatedAt: 1 });
      expect(await saveCheckpoint(store.db, "c", 11, 4)).toBe(true);
      expect((await new EventSubscriptions(store).checkpoint("c"))?.position).toBe(11);
    });

    it("verq check: a checkpoint past the newest event is CHECKPOINT_AHEAD; one at the newest is clean", async () => {
      const store = await open(engine);
      await new JobQueue(store, { clock: new ManualClock() }).enqueueMany([1, 2].map((i) => ({ id: `j-${i}`, payload: {} })));
      await new EventSubscriptions(store).subscribe({ name: "caught-up", live: false, handle: () => {} }).done;
      expect(await checkStore(store)).toMatchObject({ ok: true, findings: [] });
      // As after restoring the log from an older backup while the checkpoint row stayed.
      await saveCheckpoint(store.db, "restored", 9, 1);
      expect((await checkStore(store)).findings).toEqual([
        { code: "CHECKPOINT_AHEAD", stream: "subscription/restored", detail: "checkpoint 9 is past the newest event 2" },
      ]);
    });

    it("bad options are VERQ_INVALID_ARGUMENT at once, and nothing is read or written", async () => {
      const store = await open(engine);
      const subscriptions = new EventSubscriptions(store);
      const handle = () => {};
      for (const bad of [
        { name: "", handle },
        { name: "has space", handle },
        { name: "x".repeat(129), handle },
        { from: -1, handle },
        { from: 1.5, handle },
        { types: [], handle },
        { types: ["Job"], handle },
        { batchSize: 0, handle },
        { batchSize: 10_001, handle },
        { pollMs: 0, handle },
        { name: "ok", handle: "not a function" },
      ]) {
        let error: unknown;
        try {
          subscriptions.subscribe(bad as never);
        } catch (e) {
          error = e;
        }
        expect(isVerqError(error, "VERQ_INVALID_ARGUMENT"), JSON.stringify(bad)).toBe(true);
      }
      expect(await subscriptions.checkpoints()).toEqual([]);
    });

    it("two writers committing at once: a live subscriber sees every event once, in position order", async () => {
      const reader = await open(engine);
      // PostgreSQL: two pools whose transactions overlap. SQLite has one writer at a time: two
      // writers of one process share its connection and take turns.
      const writers = engine === "postgres" ? [await open(engine), await open(engine)] : [reader, reader];
      const seen: StoredEvent[] = [];
      const subscription = new EventSubscriptions(reader).subscribe({
        name: "both",
        pollMs: 5,
        handle: (b) => void seen.push(...b),
      });
      const clock = new ManualClock();
      await Promise.all(
        writers.map(async (writer, w) => {
          const queue = new JobQueue(writer, { clock });
          for (let t = 0; t < 20; t++)
            await writer.transaction(async (trx) => {
              for (let k = 0; k <= t % 3; k++) await queue.enqueue({ id: `w${w}-${t}-${k}`, payload: { t } }, { trx });
              // Held open for a while: the other writer's later positions commit meanwhile.
              await sleep((t * 7 + w * 3) % 11);
            });
        }),
      );
      const log = await readAllEvents(reader.db);
      expect(log).toHaveLength(2 * (7 * 1 + 7 * 2 + 6 * 3));
      await until(() => subscription.position === log.at(-1)?.position, "the subscriber to reach the end");
      await subscription.stop();
      expect(positions(seen)).toEqual(positions(log));
    });
  });
}

describe.skipIf(!(await engineAvailable("postgres")))("[postgres] E1 a position taken by a transaction still in flight", () => {
  it("a live subscriber is woken by the NOTIFY of another process's insert, long before its next poll", async () => {
    const reader = await open("postgres");
    const writer = await open("postgres");
    const seen: StoredEvent[] = [];
    const subscription = new EventSubscriptions(reader).subscribe({ pollMs: 60_000, handle: (b) => void seen.push(...b) });
    // Caught up with the empty log, and listening.
    await sleep(500);
    const started = Date.now();
    await new JobQueue(writer, { clock: new ManualClock() }).enqueue({ id: "woken", payload: {} });
    await until(() => seen.length === 1, "the NOTIFY", 5_000);
    // Well before the 60 s poll: the announcement woke it.
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(seen[0]?.streamId).toBe("woken");
    await subscription.stop();
  });

  it("is not passed over: the subscriber waits at the gap, then delivers it before the later, earlier-committed event", async () => {
    await gapScenario(await open("postgres"), await open("postgres"));
  });
});
