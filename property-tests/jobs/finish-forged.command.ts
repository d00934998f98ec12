import fc from "fast-check";
import { checkDecided, decideInOrder, finishItem, jobsBefore } from "./check-decided.ts";
import type { FinishOutcome } from "@verq/core";
import { checkFinish } from "./check-finish.ts";
import { checkInvariants } from "./check-invariants.ts";
import { expectVerqError } from "./expect-verq-error.ts";
import { OUTCOMES } from "./finish.command.ts";
import type { JobsCommand } from "./jobs-command.ts";
import { JOB_IDS, type JobsModel } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";
import { modelEqual } from "./model-assert.ts";
import { storeSnapshot } from "./store-snapshot.ts";

/**
 * J4 from outside any worker: finishes `id` with the job's current token plus `delta` (a late
 * or future token when `delta` is not 0), whatever the job's state. Tokens below 1 are bad input
 * (`VERQ_INVALID_ARGUMENT`) and an id never enqueued is `VERQ_UNKNOWN_JOB`; neither changes anything.
 */
export class FinishForgedCommand implements JobsCommand {
  constructor(
    readonly id: string,
    readonly delta: number,
    readonly outcome: FinishOutcome,
  ) {}

  static arbitrary(): fc.Arbitrary<JobsCommand> {
    return fc
      .record({
        id: fc.constantFrom(...JOB_IDS),
        delta: fc.integer({ min: -2, max: 2 }),
        outcome: fc.constantFrom(...OUTCOMES),
      })
      .map((c) => new FinishForgedCommand(c.id, c.delta, c.outcome));
  }

  check(): boolean {
    return true;
  }

  async run(m: JobsModel, r: JobsReal): Promise<void> {
    const job = m.jobs.get(this.id);
    const token = (job?.token ?? 0) + this.delta;
    const jobs = await jobsBefore(r);
    // An invalid token is refused before anything is decided; an unknown job is decided (and refused).
    const items =
      job === undefined
        ? [finishItem(r, m.now, { id: this.id, token: 1, outcome: this.outcome })]
        : token < 1
          ? []
          : [finishItem(r, m.now, { id: this.id, token, outcome: this.outcome })];
    const expected = decideInOrder(jobs, items);
    if (job === undefined || token < 1) {
      const before = await storeSnapshot(r);
      const code = job === undefined ? "VERQ_UNKNOWN_JOB" : "VERQ_INVALID_ARGUMENT";
      await expectVerqError("J4 input", code, () => r.queue.finish(this.id, job === undefined ? 1 : token, this.outcome));
      modelEqual("J4 input", `a finish refused as ${code} changed the store`, await storeSnapshot(r), before);
    } else {
      await checkFinish(m, r, this.id, token, this.outcome);
    }
    await checkDecided(r, "finish", jobs, expected);
    await checkInvariants(m, r);
  }

  toString(): string {
    const sign = this.delta < 0 ? "" : "+";
    return `finishForged(${this.id}, token=current${sign}${this.delta}, ${this.outcome})`;
  }
}
