import { setTimeout as sleep } from "node:timers/promises";
import { VerqError, type Clock } from "@verq/core";

/** A rate: at most `max` operations in any `windowMs`. */
export interface Rate {
  readonly max: number;
  readonly windowMs: number;
}

const WINDOWS: Record<string, number> = { s: 1_000, m: 60_000 };

/**
 * Parses `--rate`: a whole number per second or per minute (`200/s`, `30/m`), from 1 to 10,000
 * per window. Anything else is `VERQ_INVALID_ARGUMENT` (CLI exit 2).
 */
export function parseRate(text: string, what = "--rate"): Rate {
  const match = /^(\d{1,5})\/(s|m)$/.exec(text.trim());
  const max = Number(match?.[1]);
  const windowMs = WINDOWS[match?.[2] ?? ""];
  if (match === null || windowMs === undefined || !Number.isSafeInteger(max) || max < 1 || max > 10_000) {
    throw new VerqError(
      "VERQ_INVALID_ARGUMENT",
      `${what} must be a whole number from 1 to 10000 per second or minute, such as 200/s or 30/m; got ${JSON.stringify(text.slice(0, 40))}`,
    );
  }
  return { max, windowMs };
}

/** `200/s`, `30/m`: a rate as `--rate` writes it. */
export const formatRate = (rate: Rate): string => `${rate.max}/${rate.windowMs === 60_000 ? "m" : "s"}`;

/**
 * Fixed pacing: each operation starts at least `windowMs / max` after the time the previous one
 * was recorded at, by `clock`, so no window of `windowMs` ever holds more than `max` of them
 * (the `max + 1`-th after any one is at least a whole window later). Time is the caller's clock,
 * the one the operations' records carry, so the spacing holds for the recorded times
 * themselves. A clock that does not move (a fixed `VERQ_NOW_MS`) is waited on once per
 * operation, never forever.
 */
export class Pacer {
  readonly #intervalMs: number;
  readonly #clock: Clock;
  #last: number | null = null;

  constructor(rate: Rate, clock: Clock) {
    this.#intervalMs = rate.windowMs / rate.max;
    this.#clock = clock;
  }

  /** Waits for the next slot; resolves `false` at once when `signal` is aborted, before or while waiting. */
  async admit(signal?: AbortSignal): Promise<boolean> {
    if (aborted(signal)) return false;
    if (this.#last === null) return true;
    const due = this.#last + this.#intervalMs;
    let now = this.#clock.now();
    while (now < due) {
      try {
        await sleep(Math.max(1, Math.ceil(due - now)), undefined, signal === undefined ? {} : { signal });
      } catch {
        return false; // aborted while waiting
      }
      const later = this.#clock.now();
      if (later === now) break; // a fixed clock: it will never get there
      now = later;
    }
    return !aborted(signal);
  }

  /** Records that an operation happened at `at` (by the same clock): the next one waits from there. */
  mark(at: number): void {
    this.#last = this.#last === null ? at : Math.max(this.#last, at);
  }
}

// A function, not an inline test: the signal may be aborted while this waits.
const aborted = (signal: AbortSignal | undefined): boolean => signal?.aborted === true;
