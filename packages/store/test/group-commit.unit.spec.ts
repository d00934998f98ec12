import { describe, expect, it } from "vitest";
import { GroupCommit } from "../src/group-commit.ts";

/** One turn of the event loop: a batch that was due has started. */
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
  it("items submitted together form one batch; the ones submitted while it runs go together into the next, each with its own result", async () => {
    const r = recordingRun();
    const group = new GroupCommit(r.run);
    const first = [1, 2].map((item) => group.submit(item));
    expect(r.batches).toEqual([]);
    await nextTurn();
    expect(r.batches).toEqual([[1, 2]]);
    const rest = [3, 4, 5].map((item) => group.submit(item));
    r.release();
    expect(await Promise.all(first)).toEqual([10, 20]);
    expect(await Promise.all(rest)).toEqual([30, 40, 50]);
    expect(r.batches).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
  });

  it("a batch that throws: each of its items runs again alone, and only the bad one fails", async () => {
    const r = recordingRun(new Set([3]));
    const group = new GroupCommit(r.run);
    const first = group.submit(1);
    await nextTurn();
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
    await nextTurn();
    r.release();
    expect(await Promise.all(all)).toEqual([10, 20, 120, 30, 40, 50]);
    expect(r.batches).toEqual([
      [1, 2, 3],
      [12, 4, 5],
    ]);
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
