import type { Clock } from "@verq/core";

/**
 * A manual clock that also jumps, backwards too: the wall clock of a machine whose time an
 * operator or NTP steps. `advance` and `set` only move forward, as `ManualClock`'s do; `jump`
 * is the fault, by any amount.
 */
export class WallClock implements Clock {
  #now: number;

  constructor(startMs: number) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  /** Time passes: forward by `ms` (never backwards). Returns the new time. */
  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError("time passing only moves the clock forward; jump() steps it");
    this.#now += ms;
    return this.#now;
  }

  /** Forward to `ms`, which may not be earlier than now. Returns the new time. */
  set(ms: number): number {
    if (!Number.isFinite(ms) || ms < this.#now) throw new RangeError("set() only moves the clock forward; jump() steps it");
    this.#now = ms;
    return this.#now;
  }

  /** The clock is stepped by `ms`, forwards (positive) or backwards (negative). Returns the new time. */
  jump(ms: number): number {
    if (!Number.isSafeInteger(ms)) throw new RangeError(`a clock jump is a whole number of ms, not ${ms}`);
    this.#now += ms;
    return this.#now;
  }
}
