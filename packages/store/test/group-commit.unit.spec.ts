import { describe, expect, it } from "vitest";
import { GroupCommit } from "../src/group-commit.ts";

/** One turn of the event loop later. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A run that records each batch it is given and answers each item with `item * 10`; a batch with `bad` in it throws. */
function recordingRun(bad: ReadonlySet<number> = new Set()) {
  const batches: number[][] = [];
  let release: (() => void) | null = null;
  const run = async (items: readonly number[]): Promise<number[]> => {
    batches.push([...items]);
    // The first batch waits until the test lets it go, so that the others arrive while it runs.
    if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
    if (items.some((item) => bad.has(item))) throw new Error(`bad item in ${items.join(",")}`);
    return items.map((item) => item * 10);
  };
  return { batches, run, release: () => release?.() };
}

describe("GroupCommit: items that arrive while a batch runs share the next one", () => {
  it("an item alone starts its batch at once; the ones submitted while it runs go together into the next, each with its own result", async () => {
    const r = recordingRun();
    const group = new GroupCommit(r.run);
    const first = group.submit(1);
    expect(r.batches).toEqual([[1]]);
    const rest = [2, 3, 4, 5].map((item) => group.submit(item));
    r.release();
    expect(await first).toBe(10);
    expect(await Promise.all(rest)).toEqual([20, 30, 40, 50]);
    expect(r.batches).toEqual([[1], [2, 3, 4, 5]]);
  });

  it("after a batch in this turn of the event loop, the next items wait for the turn's check phase and go together", async () => {
    const batches: number[][] = [];
    const group = new GroupCommit((items: readonly number[]) => {
      batches.push([...items]);
      return Promise.resolve(items.map((item) => item * 10));
    });
    expect(await group.submit(1)).toBe(10);
    const later = [2, 3].map((item) => group.submit(item));
    expect(batches).toEqual([[1]]);
    expect(await Promise.all(later)).toEqual([20, 30]);
    expect(batches).toEqual([[1], [2, 3]]);
    await nextTurn();
    // A new turn, nothing started in it yet: at once again.
    const alone = group.submit(4);
    expect(batches).toEqual([[1], [2, 3], [4]]);
    expect(await alone).toBe(40);
  });

  it("a batch that throws: each of its items runs again alone, and only the bad one fails", async () => {
    const r = recordingRun(new Set([3]));
    const group = new GroupCommit(r.run);
    const first = group.submit(1);
    const rest = [2, 3, 4].map((item) => group.submit(item));
    r.release();
    expect(await first).toBe(10);
    const settled = await Promise.allSettled(rest);
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(settled[0]).toMatchObject({ value: 20 });
    expect(settled[1]).toMatchObject({ reason: { message: "bad item in 3" } });
    expect(settled[2]).toMatchObject({ value: 40 });
    expect(r.batches).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });

  it("items with one key never share a batch, and the batch size is capped; order is kept", async () => {
    const r = recordingRun();
    const group = new GroupCommit(r.run, { keyOf: (item) => String(item % 10), maxBatch: 3 });
    const all = [1, 2, 12, 3, 4, 5].map((item) => group.submit(item));
    r.release();
    expect(await Promise.all(all)).toEqual([10, 20, 120, 30, 40, 50]);
    expect(r.batches).toEqual([[1], [2, 3, 4], [12, 5]]);
  });

  it("a run that returns the wrong number of results fails every item of the batch, and runs nothing again", async () => {
    let runs = 0;
    const group = new GroupCommit((items: readonly number[]) => {
      runs++;
      return Promise.resolve(items.slice(1));
    });
    await expect(group.submit(1)).rejects.toThrow("a batch of 1 items returned 0 results");
    expect(runs).toBe(1);
  });
});
