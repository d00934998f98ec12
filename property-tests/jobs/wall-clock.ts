import { ManualClock } from "@verq/core";

/**
 * A manual clock that also jumps, backwards too: the wall clock of a machine whose time an
 * operator or NTP steps. Time passing (`advance`, `set`) moves only forward, as `ManualClock`'s
 * does; `jump` is the fault, by any amount, kept as an offset on top of it.
 */
export class WallClock extends ManualClock {
  #offset = 0;

  override now(): number {
    return super.now() + this.#offset;
  }

  override advance(ms: number): number {
    return super.advance(ms) + this.#offset;
  }

  /** Forward to `ms` as this clock reads, which may not be earlier than now. Returns the new time. */
  override set(ms: number): number {
    return super.set(ms - this.#offset) + this.#offset;
  }

  /** The clock is stepped by `ms`, forwards (positive) or backwards (negative). Returns the new time. */
  jump(ms: number): number {
    if (!Number.isSafeInteger(ms)) throw new RangeError(`a clock jump is a whole number of ms, not ${ms}`);
    this.#offset += ms;
    return this.now();
  }
}
