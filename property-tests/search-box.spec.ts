import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fcConfig, UNBOUNDED_RUNS } from "./fc-config.ts";
import { assertProperty, PropertyFailed } from "./property-failure.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What each run of a property saw and when it ended, to show that no run is left running. */
function tracked(fails: (n: number) => boolean) {
  let running = 0;
  let overlapped = false;
  const property = fc.asyncProperty(fc.integer({ min: 0, max: 100_000 }), async (n) => {
    if (running > 0) overlapped = true;
    running += 1;
    await sleep(5);
    running -= 1;
    if (fails(n)) throw new Error(`[box] ${n}`);
  });
  return { property, running: () => running, overlapped: () => overlapped };
}

describe("a fresh search's time box", () => {
  it("ends the search cleanly, as interrupted, with no run left running", async () => {
    const t = tracked(() => false);
    const summary = await assertProperty(t.property, fcConfig("box", { numRuns: 1, fresh: { seed: 1, boxMs: 100 } }));
    expect(summary.interrupted).toBe(true);
    expect(summary.numRuns).toBeGreaterThan(0);
    expect(summary.numRuns).toBeLessThan(UNBOUNDED_RUNS);
    expect(t.running()).toBe(0);
    expect(t.overlapped()).toBe(false);
  });

  it("stands aside once a run failed, so that the failure is shrunk to the end", async () => {
    // Seed 1 draws 69 517 first, which fails; the box is over before that run ends, and each of
    // the many shrink steps down to 1 000 sleeps too.
    const t = tracked((n) => n >= 1_000);
    const failure = await assertProperty(t.property, fcConfig("box", { numRuns: 1, fresh: { seed: 1, boxMs: 1 } })).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(PropertyFailed);
    expect((failure as PropertyFailed).message).toMatch(/Counterexample: \[1000\]/);
  });

  it("prints the fresh seed before the search", () => {
    const lines: string[] = [];
    const log = console.log;
    console.log = (line: string) => void lines.push(line);
    try {
      fcConfig("box-name", { numRuns: 1, fresh: { seed: 77, boxMs: 10 } });
    } finally {
      console.log = log;
    }
    expect(lines).toEqual(["[fc] box-name fresh seed=77 box=10ms"]);
  });
});
