import fc from "fast-check";
import { checkSlots } from "./check-slots.ts";
import type { SchedulesCommand } from "./schedules-command.ts";
import type { SchedulesModel, SchedulesReal } from "./schedules-world.ts";

const MINUTE = 60_000;

/** Time passes: 1 ms, up to a slot boundary, whole minutes (landing exactly on slots), or hours of downtime. */
export class AdvanceClockCommand implements SchedulesCommand {
  constructor(readonly ms: number) {}

  static arbitrary(): fc.Arbitrary<SchedulesCommand> {
    return fc
      .oneof(
        fc.constantFrom(1, MINUTE - 1, MINUTE),
        fc.integer({ min: 1, max: 20 }).map((n) => n * MINUTE),
        fc.integer({ min: 1, max: 4 * 60 }).map((n) => n * MINUTE + 1),
      )
      .map((ms) => new AdvanceClockCommand(ms));
  }

  check(): boolean {
    return true;
  }

  async run(m: SchedulesModel, r: SchedulesReal): Promise<void> {
    m.now = r.clock.advance(this.ms);
    await checkSlots(m, r);
  }

  toString(): string {
    return `advance(${this.ms})`;
  }
}
