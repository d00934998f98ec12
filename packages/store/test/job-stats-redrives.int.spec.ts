import { ManualClock, isVerqError } from "@verq/core";
import { ENGINES, engineAvailable } from "@verq/testing";
import { describe, expect, it } from "vitest";
import { JobQueue } from "../src/index.ts";
import { freshStores } from "./helpers/fresh-store.ts";

/**
 * `stats().redrives` counts the redrive audit trail (SPEC J6): one per accepted redrive, the
 * same job redriven twice counted twice, a refused redrive not at all; the count is read from
 * the `redrives` projection, so a rebuild from the event log gives the same figure.
 */
for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] stats().redrives`, () => {
    const stores = freshStores();

    it("J6 J7: counts every accepted redrive in the audit trail and no refused one, before and after a rebuild", async () => {
      const { store } = await stores.open(engine);
      const clock = new ManualClock();
      const queue = new JobQueue(store, { clock, redriveLimit: { max: 2, windowMs: 60_000 } });
      const kill = async (id: string) => {
        const job = await queue.claim("w");
        if (job?.id !== id) throw new Error(`expected to claim ${id}`);
        expect(await queue.finish(id, job.token, "permanent")).toBe(true);
      };
      expect((await queue.stats()).redrives).toBe(0);

      await queue.enqueue({ id: "a", payload: {}, maxAttempts: 1 });
      await kill("a");
      await queue.enqueue({ id: "b", payload: {}, maxAttempts: 1 });
      await kill("b");
      await queue.redrive("a", { note: "OPS-1" });
      expect((await queue.stats()).redrives).toBe(1);

      // Refused: not dead, then over the rate limit. Neither is counted.
      const notDead: unknown = await queue.redrive("a", { note: "OPS-2" }).catch((e: unknown) => e);
      expect(isVerqError(notDead, "VERQ_NOT_DEAD")).toBe(true);
      await kill("a");
      await queue.redrive("a", { note: "OPS-3" });
      const limited: unknown = await queue.redrive("b", { note: "OPS-4" }).catch((e: unknown) => e);
      expect(isVerqError(limited, "VERQ_REDRIVE_RATE_LIMITED")).toBe(true);
      expect((await queue.stats()).redrives).toBe(2);

      clock.advance(60_000);
      await queue.redrive("b", { note: "OPS-5" });
      const stats = await queue.stats();
      expect(stats.redrives).toBe(3);
      expect(stats.lastRedrive).toMatchObject({ jobId: "b", note: "OPS-5" });

      await store.rebuildProjections();
      expect(await queue.stats()).toEqual(stats);
    });
  });
}
