import { VerqError } from "@verq/core";

/** How often and how patiently {@link retryWhenBusy} tries again. */
export interface BusyRetry {
  /** Tries in all, the first included. */
  readonly attempts: number;
  /** The pause before try n+1 is `min(maxPauseMs, stepMs × n)` milliseconds. */
  readonly stepMs: number;
  readonly maxPauseMs: number;
  /**
   * The wait limit, if any: no try after the second starts once this many ms have passed since
   * the first, so a lock held longer ends in `VERQ_STORE_BUSY` after about this long (a try that
   * waits in the engine's own busy handler, as a SQLite `BEGIN IMMEDIATE` does, counts in full).
   * The second try always comes: when two connections of one process share a SQLite file, the
   * first try's busy handler blocks the very event loop the lock holder needs to commit, so only
   * a try after a pause can succeed (at most about twice the limit in all).
   */
  readonly limitMs?: number;
}

/** A transaction's default: 20 tries, 5 ms more pause each time, at most 200 ms. */
export const TRANSACTION_RETRY: BusyRetry = { attempts: 20, stepMs: 5, maxPauseMs: 200 };

/**
 * Runs `work` and, while it fails because another process holds the database (`isBusy`, the
 * dialect's test), runs it again from the start after a short growing pause. After the last try,
 * or once `retry.limitMs` has passed, it throws `VERQ_STORE_BUSY` with the busy error as its
 * cause; any other error is thrown at once.
 * `work` must therefore do nothing outside the database that it cannot repeat. The one place
 * where the store waits for a lock held by someone else: transactions, migrations and the
 * journal-mode switch of a fresh file all go through it.
 */
export async function retryWhenBusy<T>(
  isBusy: (error: unknown) => boolean,
  work: () => T | Promise<T>,
  retry: BusyRetry = TRANSACTION_RETRY,
): Promise<T> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isBusy(error)) throw error;
      const pause = Math.min(retry.maxPauseMs, retry.stepMs * attempt);
      const waited = Date.now() - started;
      const pastLimit = retry.limitMs !== undefined && attempt >= 2 && waited + pause >= retry.limitMs;
      if (attempt >= retry.attempts || pastLimit) {
        throw new VerqError(
          "VERQ_STORE_BUSY",
          `the database stayed locked by another process (waited ${waited} ms, ${attempt} ${attempt === 1 ? "try" : "tries"}); nothing was written, try again later`,
          { cause: error },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
