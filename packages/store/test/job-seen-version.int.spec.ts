import { ManualClock, type VerqErrorCode } from "@verq/core";
import { ENGINES, engineAvailable } from "@verq/testing";
import { beforeEach, describe, expect, it } from "vitest";
import { JobQueue, type VerqStore } from "../src/index.ts";
import { freshStores } from "./helpers/fresh-store.ts";
import { expectRefusedUnchanged } from "./helpers/refused-unchanged.ts";

/*
 * An operator acts on the job they saw: a redrive or a cancel given the version the page was
 * drawn at is refused with VERQ_JOB_CHANGED, changing nothing, once the job has moved on.
 */
for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] acts given the version seen`, () => {
    const stores = freshStores();
    let store: VerqStore;
    let clock: ManualClock;
    let queue: JobQueue;

    beforeEach(async () => {
      ({ store } = await stores.open(engine));
      clock = new ManualClock(1_700_000_000_000);
      queue = new JobQueue(store, { clock, defaultLeaseMs: 1_000, redriveLimit: { max: 100, windowMs: 60_000 } });
    });

    const expectRefused = (call: () => Promise<unknown>, code: VerqErrorCode) =>
      expectRefusedUnchanged(store, call, code, ["jobs", "events", "redrives"]);

    async function deadJob(id: string): Promise<number> {
      await queue.enqueue({ id, payload: { n: 1 }, maxAttempts: 1 });
      const claimed = await queue.claim("w", { leaseMs: 1_000 });
      if (claimed === null) throw new Error("nothing claimed");
      await queue.finish(claimed.id, claimed.token, "permanent");
      const job = await queue.get(id);
      expect(job?.state).toBe("dead");
      return job?.version ?? 0;
    }

    it("a redrive at the version seen is done; one drawn before the job moved on is refused", async () => {
      const seen = await deadJob("a");
      await expectRefused(() => queue.redrive("a", { note: "OPS-1", expectedVersion: seen - 1 }), "VERQ_JOB_CHANGED");
      await expectRefused(() => queue.redrive("a", { note: "OPS-1", expectedVersion: seen + 1 }), "VERQ_JOB_CHANGED");
      const record = await queue.redrive("a", { note: "OPS-1", expectedVersion: seen });
      expect(record.jobId).toBe("a");
      expect((await queue.get("a"))?.state).toBe("pending");
      // The same form again: the job has moved on (and is no longer dead).
      await expectRefused(() => queue.redrive("a", { note: "OPS-1", expectedVersion: seen }), "VERQ_JOB_CHANGED");
    });

    it("a cancel at the version seen is done; one drawn before a claim is refused", async () => {
      await queue.enqueue({ id: "p", payload: { n: 1 } });
      const seen = (await queue.get("p"))?.version ?? 0;
      await queue.claim("w", { leaseMs: 1_000 });
      await expectRefused(() => queue.cancel("p", { note: "OPS-2", expectedVersion: seen }), "VERQ_JOB_CHANGED");
      const now = (await queue.get("p"))?.version ?? 0;
      const result = await queue.cancel("p", { note: "OPS-2", expectedVersion: now });
      expect(result).toMatchObject({ cancelled: true, state: "leased" });
    });

    it("a version that is not a whole number from 1 is refused before anything is read", async () => {
      await deadJob("b");
      for (const expectedVersion of [0, -1, 1.5, Number.NaN]) {
        await expectRefused(() => queue.redrive("b", { note: "OPS-3", expectedVersion }), "VERQ_INVALID_ARGUMENT");
        await expectRefused(() => queue.cancel("b", { note: "OPS-3", expectedVersion }), "VERQ_INVALID_ARGUMENT");
      }
    });

    it("without a version, the acts are as before", async () => {
      await deadJob("c");
      await queue.redrive("c", { note: "OPS-4" });
      expect(await queue.cancel("c", { note: "OPS-4" })).toMatchObject({ cancelled: true, state: "pending" });
    });
  });
}
