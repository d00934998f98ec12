import fc from "fast-check";
import { checkSlots } from "./check-slots.ts";
import type { SchedulesCommand } from "./schedules-command.ts";
import type { SchedulesModel, SchedulesReal } from "./schedules-world.ts";

/** Some of the three schedulers run their due schedules at once, at the same instant. */
export class RunDueCommand implements SchedulesCommand {
  constructor(readonly schedulers: readonly number[]) {}

  static arbitrary(): fc.Arbitrary<SchedulesCommand> {
    return fc
      .subarray([0, 1, 2], { minLength: 1 })
      .chain((picked) => fc.shuffledSubarray(picked, { minLength: picked.length, maxLength: picked.length }))
      .map((order) => new RunDueCommand(order));
  }

  check(): boolean {
    return true;
  }

  async run(m: SchedulesModel, r: SchedulesReal): Promise<void> {
    const results = await Promise.all(this.schedulers.map((i) => r.schedulers[i]?.runDue() ?? Promise.resolve([])));
    const expected = m.runDue();
    const reported = results.flat();
    const names = reported.map((f) => f.name);
    if (new Set(names).size !== names.length) {
      throw new Error(`[slot once] two schedulers reported a fire of one schedule: ${reported.map((f) => f.jobId).join(", ")}`);
    }
    for (const fired of reported) {
      if (expected.get(fired.name) !== fired.slot) {
        throw new Error(
          `[policy] ${fired.name} fired slot ${new Date(fired.slot).toISOString()} at ${new Date(m.now).toISOString()}`,
        );
      }
    }
    await checkSlots(m, r);
  }

  toString(): string {
    return `runDue(${this.schedulers.join(",")})`;
  }
}
