import { isVerqError } from "@verq/core";
import { describe, expect, it, vi } from "vitest";
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

/**
 * Runs `body` on a clock of its own: `Date.now()` starts at 1,000 and moves only by the pauses
 * asked of `setTimeout`, which each still wait, for no time, on the real timer.
 */
async function onOwnClock<T>(body: () => Promise<T>): Promise<T> {
  let now = 1_000;
  const clock = vi.spyOn(Date, "now").mockImplementation(() => now);
  const setTimeoutBefore = globalThis.setTimeout;
  globalThis.setTimeout = ((callback: () => void, ms: number) => {
    now += ms;
    return setTimeoutBefore(callback, 0);
  }) as typeof setTimeout;
  try {
    return await body();
  } finally {
    globalThis.setTimeout = setTimeoutBefore;
    clock.mockRestore();
  }
}

const alwaysBusy = () => flaky(Array.from({ length: 100 }, () => new Busy()));

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

  describe("the wait limit: no try starts once limitMs has passed since the first", () => {
    // Pauses of 10 ms: tries start at 0, 10, 20, 30, 40 ms of waiting.
    const retry = (limitMs: number) => ({ attempts: 100, stepMs: 10, maxPauseMs: 10, limitMs });

    it("a pause that would end at the limit is not taken: limit 40 ends after the try at 30 ms", async () => {
      const work = alwaysBusy();
      const error = await onOwnClock(() => retryWhenBusy(isBusy, work.run, retry(40)).catch((e: unknown) => e));
      expect(isVerqError(error, "VERQ_STORE_BUSY")).toBe(true);
      expect((error as Error).message).toBe(
        "the database stayed locked by another process (waited 30 ms, 4 tries); nothing was written, try again later",
      );
      expect(work.tries).toBe(4);
    });

    it("one more millisecond of limit (41) lets the try at 40 ms start", async () => {
      const work = alwaysBusy();
      const error = await onOwnClock(() => retryWhenBusy(isBusy, work.run, retry(41)).catch((e: unknown) => e));
      expect((error as Error).message).toContain("(waited 40 ms, 5 tries)");
      expect(work.tries).toBe(5);
    });

    it("the second try always comes, even when the first waited past the limit (one process, two connections)", async () => {
      const firstOnly = flaky([new Busy()]);
      expect(await onOwnClock(() => retryWhenBusy(isBusy, firstOnly.run, retry(5)))).toBe("done");
      expect(firstOnly.tries).toBe(2);
      const work = alwaysBusy();
      const error = await onOwnClock(() => retryWhenBusy(isBusy, work.run, retry(5)).catch((e: unknown) => e));
      expect((error as Error).message).toContain("(waited 10 ms, 2 tries)");
      expect(work.tries).toBe(2);
    });

    it("a success before the limit is answered, whatever the limit", async () => {
      const work = flaky([new Busy(), new Busy()]);
      expect(await onOwnClock(() => retryWhenBusy(isBusy, work.run, retry(35)))).toBe("done");
      expect(work.tries).toBe(3);
    });

    it("without a limit only the number of tries ends the waiting, however long it took", async () => {
      const work = alwaysBusy();
      const error = await onOwnClock(() =>
        retryWhenBusy(isBusy, work.run, { attempts: 7, stepMs: 1_000, maxPauseMs: 1_000 }).catch((e: unknown) => e),
      );
      expect((error as Error).message).toContain("(waited 6000 ms, 7 tries)");
      expect(work.tries).toBe(7);
    });
  });

  it("a single try says so: one try, no wait", async () => {
    const work = alwaysBusy();
    const error = await onOwnClock(() =>
      retryWhenBusy(isBusy, work.run, { attempts: 1, stepMs: 10, maxPauseMs: 10 }).catch((e: unknown) => e),
    );
    expect((error as Error).message).toBe(
      "the database stayed locked by another process (waited 0 ms, 1 try); nothing was written, try again later",
    );
  });
});
