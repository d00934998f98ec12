import fc from "fast-check";
import { checkInvariants } from "./check-invariants.ts";
import { checkRebuild } from "./check-rebuild.ts";
import type { JobsCommand } from "./jobs-command.ts";
import type { JobsModel } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";
import { modelEqual } from "./model-assert.ts";
import { storeSnapshot } from "./store-snapshot.ts";

const SECOND = 1_000;
const HOUR = 3_600_000;

/**
 * A clock fault: the wall clock is stepped backwards or forwards, by milliseconds (across lease
 * boundaries), seconds or hours, as NTP or an operator may step it. The documented rule (docs/operations.md,
 * "Clock jumps"): a jump writes nothing, and every lease end, due time and deadline stays the
 * absolute instant it was, judged against the new `now` at the next decision. So a backwards
 * jump makes leases and backoffs last longer by the jump, never shorter (a lease that had run
 * out but was not taken over is live again), and a forward jump ends them sooner; a fencing token
 * is a per-job counter, never derived from time, so no token is ever handed out twice. The
 * model needs no special case: its lease, backoff and deadline rules already compare with `now`.
 * Checked here: the store is unchanged by the jump, and a projection rebuild still matches.
 */
export class ClockJumpCommand implements JobsCommand {
  constructor(readonly ms: number) {}

  static arbitrary(): fc.Arbitrary<JobsCommand> {
    const magnitude = fc.oneof(
      fc.integer({ min: 1, max: 300 }),
      fc.integer({ min: 1, max: 59 }).map((s) => s * SECOND),
      fc.integer({ min: 1, max: 3 }).map((h) => h * HOUR),
    );
    // Backwards twice as often as forwards: the forward moves are already the other commands'.
    return fc
      .record({ sign: fc.constantFrom(-1, -1, 1), magnitude })
      .map(({ sign, magnitude: ms }) => new ClockJumpCommand(sign * ms));
  }

  check(): boolean {
    return true;
  }

  async run(m: JobsModel, r: JobsReal): Promise<void> {
    const before = await storeSnapshot(r);
    m.now = r.clock.jump(this.ms);
    modelEqual("clock jump", `${this.toString()} changed the store`, await storeSnapshot(r), before);
    await checkInvariants(m, r);
    if (this.ms < 0) await checkRebuild(r);
  }

  toString(): string {
    const size = Math.abs(this.ms);
    const amount = size % HOUR === 0 ? `${size / HOUR} h` : size % SECOND === 0 ? `${size / SECOND} s` : `${size} ms`;
    return `clockJump(${this.ms < 0 ? "-" : "+"}${amount})`;
  }
}
