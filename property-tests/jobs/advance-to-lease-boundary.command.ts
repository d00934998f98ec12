import fc from "fast-check";
import { checkInvariants } from "./check-invariants.ts";
import type { JobsCommand } from "./jobs-command.ts";
import type { JobsModel } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";

/**
 * J3 boundary: sets the clock to a leased job's `leaseUntil + offset`, offset -1, 0 or +1, so
 * that claims and heartbeats land exactly on the last held millisecond and the first expired one.
 */
export class AdvanceToLeaseBoundaryCommand implements JobsCommand {
  constructor(
    readonly pick: number,
    readonly offset: -1 | 0 | 1,
  ) {}

  static arbitrary(): fc.Arbitrary<JobsCommand> {
    return fc
      .record({ pick: fc.nat({ max: 7 }), offset: fc.constantFrom(-1 as const, 0 as const, 1 as const) })
      .map((c) => new AdvanceToLeaseBoundaryCommand(c.pick, c.offset));
  }

  /** The time to move to, or `null` when no leased job has that boundary still ahead. */
  target(m: Readonly<JobsModel>): number | null {
    const leased = [...m.jobs.values()].filter((j) => j.state === "leased").sort((a, b) => a.id.localeCompare(b.id));
    const leaseUntil = leased[this.pick % Math.max(1, leased.length)]?.leaseUntil;
    if (leaseUntil === undefined || leaseUntil === null) return null;
    const target = leaseUntil + this.offset;
    return target >= m.now ? target : null;
  }

  check(m: Readonly<JobsModel>): boolean {
    return this.target(m) !== null;
  }

  async run(m: JobsModel, r: JobsReal): Promise<void> {
    const target = this.target(m);
    if (target === null) throw new Error("AdvanceToLeaseBoundaryCommand ran without a boundary ahead");
    m.now = r.clock.set(target);
    await checkInvariants(m, r);
  }

  toString(): string {
    const sign = this.offset < 0 ? "" : "+";
    return `advanceToLeaseBoundary(leased#${this.pick}, leaseUntil${sign}${this.offset})`;
  }
}
