import { ManualClock } from "@verq/core";
import { JobQueue, type VerqStore } from "@verq/store";
import { ENGINES, engineAvailable, type Engine } from "@verq/testing";
import { describe, expect, it } from "vitest";
import { freshStores } from "./helpers/fresh-store.ts";

const stores = freshStores();
const open = async (engine: Engine): Promise<VerqStore> => (await stores.open(engine)).store;

describe("[sqlite] the hot path runs only on the store's own open transaction", () => {
  it("holds a transaction of store.transaction while its work runs, and no other", async () => {
    const s = await open("sqlite");
    const hot = s.dialect.statements.hotPath;
    expect(hot).toBeDefined();
    let inside: Parameters<Parameters<VerqStore["transaction"]>[0]>[0] | undefined;
    await s.transaction(async (trx) => {
      inside = trx;
      expect(hot?.holds(trx)).toBe(true);
      await Promise.resolve();
      expect(hot?.holds(trx)).toBe(true);
    });
    // Committed: a statement now would land outside it.
    expect(hot?.holds(inside!)).toBe(false);
    await expect(
      s.transaction((trx) => {
        inside = trx;
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(hot?.holds(inside!)).toBe(false);
    // A transaction the service opened itself, and the store's Kysely instance, take the Kysely path.
    await s.db.transaction().execute((trx) => {
      expect(hot?.holds(trx)).toBe(false);
      return Promise.resolve();
    });
    expect(hot?.holds(s.db)).toBe(false);
  });

  it("what it wrote rolls back with the transaction, and the same work through the Kysely path writes the same rows", async () => {
    const s = await open("sqlite");
    const clock = new ManualClock();
    const queue = new JobQueue(s, { clock });
    await expect(
      s.transaction(async (trx) => {
        await queue.enqueueMany(
          [1, 2].map((i) => ({ id: `gone-${i}`, payload: { i } })),
          { trx },
        );
        throw new Error("after the enqueue");
      }),
    ).rejects.toThrow("after the enqueue");
    expect(await queue.get("gone-1")).toBeNull();

    // One job through the hot path (store.transaction), its twin through Kysely (a service's own transaction).
    await s.transaction((trx) => queue.enqueue({ id: "hot", payload: { q: 1 } }, { trx }));
    await s.db.transaction().execute((trx) => queue.enqueue({ id: "kysely", payload: { q: 1 } }, { trx }));
    const hot = await queue.get("hot");
    const kysely = await queue.get("kysely");
    expect({ ...kysely, id: "hot" }).toEqual(hot);
    const [claimed] = await queue.claimMany("w", 2);
    expect(claimed?.id).toBe("hot");
    expect(await queue.finish("hot", claimed?.token ?? 0, "ok")).toBe(true);
    expect((await queue.get("hot"))?.state).toBe("done");
  });
});

for (const engine of ENGINES.filter((e) => e === "postgres")) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    it("has no hot path: every statement is a round trip, a batch one statement over arrays", async () => {
      expect((await open(engine)).dialect.statements.hotPath).toBeUndefined();
    });
  });
}
