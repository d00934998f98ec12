import { isVerqError } from "@verq/core";
import { describe, expect, it } from "vitest";
import { retryWhenBusy } from "../src/retry-when-busy.ts";

class Busy extends Error {}
const isBusy = (error: unknown) => error instanceof Busy;

/** Work that throws `errors` in turn, then answers `done`; it counts its tries. */
function flaky(errors: readonly Error[]) {
  const work = {
    tries: 0,
    run: (): Promise<string> => {
      const error = errors[work.tries++];
      return error === undefined ? Promise.resolve("done") : Promise.reject(error);
    },
  };
  return work;
}

describe("retryWhenBusy: the one place where the store waits for a lock held by someone else", () => {
  it("tries again after each busy failure and answers with the first success", async () => {
    const work = flaky([new Busy(), new Busy()]);
    expect(await retryWhenBusy(isBusy, work.run, { attempts: 3, stepMs: 1, maxPauseMs: 1 })).toBe("done");
    expect(work.tries).toBe(3);
  });

  it("after the last try throws VERQ_STORE_BUSY with the busy error as its cause, after exactly `attempts` tries", async () => {
    const last = new Busy("still locked");
    const work = flaky([new Busy(), new Busy(), last]);
    const error = await retryWhenBusy(isBusy, work.run, { attempts: 3, stepMs: 1, maxPauseMs: 1 }).catch((e: unknown) => e);
    expect(isVerqError(error, "VERQ_STORE_BUSY")).toBe(true);
    expect((error as Error).cause).toBe(last);
    expect(work.tries).toBe(3);
  });

  it("throws any other error at once, without a second try", async () => {
    const other = new Error("constraint failed");
    const work = flaky([other]);
    await expect(retryWhenBusy(isBusy, work.run, { attempts: 5, stepMs: 1, maxPauseMs: 1 })).rejects.toBe(other);
    expect(work.tries).toBe(1);
  });

  it("pauses min(maxPauseMs, stepMs × n) before try n + 1", async () => {
    const work = flaky([new Busy(), new Busy(), new Busy()]);
    const pauses: number[] = [];
    const setTimeoutBefore = globalThis.setTimeout;
    // Records the pauses asked for; each still waits, for no time, on the real timer.
    globalThis.setTimeout = ((callback: () => void, ms: number) => {
      pauses.push(ms);
      return setTimeoutBefore(callback, 0);
    }) as typeof setTimeout;
    try {
      expect(await retryWhenBusy(isBusy, work.run, { attempts: 4, stepMs: 30, maxPauseMs: 50 })).toBe("done");
    } finally {
      globalThis.setTimeout = setTimeoutBefore;
    }
    expect(pauses).toEqual([30, 50, 50]);
  });

  it("by default tries 20 times in all", async () => {
    const work = flaky(Array.from({ length: 25 }, () => new Busy()));
    const setTimeoutBefore = globalThis.setTimeout;
    globalThis.setTimeout = ((callback: () => void) => setTimeoutBefore(callback, 0)) as typeof setTimeout;
    try {
      expect(isVerqError(await retryWhenBusy(isBusy, work.run).catch((e: unknown) => e), "VERQ_STORE_BUSY")).toBe(true);
    } finally {
      globalThis.setTimeout = setTimeoutBefore;
    }
    expect(work.tries).toBe(20);
  });
});
