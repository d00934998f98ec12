import { ManualClock } from "@verq/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobQueue, type VerqStore } from "../src/index.ts";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";

/**
 * One claim searches for candidates again only while one may be left: when its search came back
 * full, or freed a slot of a queue it left out. A search that came back short saw every one.
 */
for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] how far a claim searches`, () => {
    const T0 = 1_700_000_000_000;
    let database: TestDatabase;
    let store: VerqStore;
    let clock: ManualClock;
    let queue: JobQueue;

    beforeEach(async () => {
      database = await createTestDatabase(engine, "search.sqlite");
      store = await database.open();
      clock = new ManualClock(T0);
      queue = new JobQueue(store, { clock });
    });
    afterEach(async () => {
      await store.close();
      await database.dispose();
    });

    it("a search full of spent leases that go dead is followed by another, which finds the due jobs behind them", async () => {
      // Ten jobs on their last attempt, leased, their leases run out: the first search of the
      // next claim (eight at least) is all of them, and the machine sends them dead.
      await queue.enqueueMany(Array.from({ length: 10 }, (_, i) => ({ id: `spent-${i}`, payload: null, maxAttempts: 1 })));
      expect(await queue.claimMany("w1", 10, { leaseMs: 1_000 })).toHaveLength(10);
      clock.advance(1_000);
      await queue.enqueueMany(Array.from({ length: 3 }, (_, i) => ({ id: `due-${i}`, payload: null })));
      const claimed = await queue.claimMany("w2", 8);
      expect(claimed.map((job) => job.id).sort()).toEqual(["due-0", "due-1", "due-2"]);
      const states = await Promise.all(Array.from({ length: 10 }, async (_, i) => (await queue.get(`spent-${i}`))?.state));
      // The second search came back short (two spent leases, then the three due jobs): the end.
      expect(states.filter((state) => state === "dead")).toHaveLength(10);
    });
  });
}
