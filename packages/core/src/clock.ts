/** Time is an input: core never reads the system clock itself. Milliseconds since the epoch. */
export interface Clock {
  now(): number;
}

/** The wall clock, for production use at the edges. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * A clock that moves only when told to. Tests and demos use it to stand exactly on a boundary
 * (`leaseUntil - 1`, `leaseUntil`).
 */
export class ManualClock implements Clock {
  #now: number;

  constructor(startMs = 1_700_000_000_000) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  /** Moves the clock forward by `ms` (never backwards) and returns the new time. */
  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError("a manual clock only moves forward");
    this.#now += ms;
    return this.#now;
  }

  /** Sets the clock to `ms`, which may not be earlier than the current time. */
  set(ms: number): number {
    if (!Number.isFinite(ms) || ms < this.#now) throw new RangeError("a manual clock only moves forward");
    this.#now = ms;
    return this.#now;
  }
}
