import fc from "fast-check";
import { checkInvariants } from "./check-invariants.ts";
import type { JobsCommand } from "./jobs-command.ts";
import type { JobsModel } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";

/** Time passes: the manual clock moves forward by `ms` (sometimes 0 or 1, sometimes a lot). */
export class AdvanceClockCommand implements JobsCommand {
  constructor(readonly ms: number) {}

  static arbitrary(): fc.Arbitrary<JobsCommand> {
    return fc
      .oneof(fc.constantFrom(0, 1), fc.integer({ min: 2, max: 40 }), fc.integer({ min: 41, max: 300 }))
      .map((ms) => new AdvanceClockCommand(ms));
  }

  check(): boolean {
    return true;
  }

  async run(m: JobsModel, r: JobsReal): Promise<void> {
    m.now = r.clock.advance(this.ms);
    await checkInvariants(m, r);
  }

  toString(): string {
    return `advance(${this.ms})`;
  }
}
