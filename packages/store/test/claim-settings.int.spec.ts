import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobQueue, type ClaimCandidates, type VerqStore } from "../src/index.ts";
import { selectClaimCandidates } from "../src/internal.ts";
import { createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";

/**
 * A claim on PostgreSQL searches with the planner's sort and JIT off (stale statistics would
 * otherwise have it sort every due job), set by its first statement, the read of its queues'
 * limits, whether or not a queue it names has a limit, and for its own transaction only.
 */
describe.skipIf(!(await engineAvailable("postgres")))("[postgres] the claim's planner settings", () => {
  let database: TestDatabase;
  let store: VerqStore;
  const seen: string[] = [];
  // The store's own candidate search, which first notes the settings its transaction has.
  const noting: ClaimCandidates = async (trx, ...rest) => {
    const { rows } = await sql<{
      sort: string;
      jit: string;
    }>`select current_setting('enable_sort') as sort, current_setting('jit') as jit`.execute(trx);
    seen.push(`${rows[0]?.sort}/${rows[0]?.jit}`);
    return selectClaimCandidates(trx, ...rest);
  };

  beforeEach(async () => {
    seen.length = 0;
    database = await createTestDatabase("postgres");
    store = await database.open();
  });
  afterEach(async () => {
    await store.close();
    await database.dispose();
  });

  const settingsNow = async () => {
    const { rows } = await sql<{ sort: string }>`select current_setting('enable_sort') as sort`.execute(store.db);
    return rows[0]?.sort;
  };

  it("are made for a claim of unlimited queues, and end with its transaction", async () => {
    const queue = new JobQueue(store, { claimCandidates: noting });
    await queue.enqueueMany([{ id: "a", payload: null }]);
    expect((await queue.claimMany("w", 4, { queues: ["default", "other"] })).map((job) => job.id)).toEqual(["a"]);
    expect(seen).toEqual(["off/off"]);
    expect(await settingsNow()).toBe("on");
  });

  it("are made for a claim of a limited queue, whose limit still holds", async () => {
    const queue = new JobQueue(store, { claimCandidates: noting });
    await queue.setQueueLimit("limited", { maxLeased: 2 });
    await queue.enqueueMany(Array.from({ length: 5 }, (_, i) => ({ id: `l${i}`, payload: null, queue: "limited" })));
    expect(await queue.claimMany("w", 5, { queues: ["limited", "default"] })).toHaveLength(2);
    expect(seen[0]).toBe("off/off");
    expect(seen.every((s) => s === "off/off")).toBe(true);
    expect(await settingsNow()).toBe("on");
  });
});
