import { ManualClock } from "@verq/core";
import { JobQueue } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable } from "@verq/testing";
import { describe, expect, it } from "vitest";
import { figureReader } from "../../src/metrics/verq-figures.ts";

/** One scrape, one read: the metrics' collect calls made while a read is in flight share it; the next scrape reads again. */
for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] figureReader`, () => {
    it("calls made while a read is in flight share it; a call after it settled reads the store again", async () => {
      const database = await createTestDatabase(engine);
      const store = await database.open();
      try {
        const clock = new ManualClock();
        let reads = 0;
        const bounds = { queues: 100, kinds: 100, errorClasses: 100 };
        const read = figureReader({ store, clock, bounds, onRead: () => reads++ });
        const first = read();
        expect(read()).toBe(first);
        const figures = await first;
        expect(figures).toMatchObject({ files: null, now: clock.now(), jobs: { total: 0 } });
        expect(reads).toBe(1);
        await new JobQueue(store).enqueue({ id: "a-1", payload: {} });
        clock.advance(5);
        const second = read();
        expect(second).not.toBe(first);
        expect(await second).toMatchObject({ now: clock.now(), jobs: { total: 1, byState: { pending: 1 } } });
        expect(reads).toBe(2);
      } finally {
        await store.close();
        await database.dispose();
      }
    });
  });
}
