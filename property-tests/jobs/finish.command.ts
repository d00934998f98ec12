import fc from "fast-check";
import type { FinishOutcome } from "@verq/core";
import { checkDecided, decideInOrder, finishItem, jobsBefore } from "./check-decided.ts";
import { checkFinish } from "./check-finish.ts";
import { checkInvariants } from "./check-invariants.ts";
import type { JobsCommand } from "./jobs-command.ts";
import type { JobsModel } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";

/** The outcomes a worker may report, drawn uniformly. */
export const OUTCOMES: readonly FinishOutcome[] = ["ok", "retry", "permanent"];

/**
 * J4: a worker finishes a claim it holds, with the token that claim returned. The token is
 * current unless the lease expired and another claim took over, or a redrive intervened; either
 * way the worker then forgets the claim.
 */
export class FinishCommand implements JobsCommand {
  constructor(
    readonly pick: number,
    readonly outcome: FinishOutcome,
  ) {}

  static arbitrary(): fc.Arbitrary<JobsCommand> {
    return fc
      .record({ pick: fc.nat({ max: 7 }), outcome: fc.constantFrom(...OUTCOMES) })
      .map((c) => new FinishCommand(c.pick, c.outcome));
  }

  check(m: Readonly<JobsModel>): boolean {
    return m.held.length > 0;
  }

  async run(m: JobsModel, r: JobsReal): Promise<void> {
    const claim = m.held[this.pick % m.held.length];
    if (claim === undefined) throw new Error("FinishCommand ran without a held claim");
    m.forget(claim);
    const jobs = await jobsBefore(r);
    const expected = decideInOrder(jobs, [finishItem(r, m.now, { id: claim.id, token: claim.token, outcome: this.outcome })]);
    await checkFinish(m, r, claim.id, claim.token, this.outcome);
    await checkDecided(r, "finish", jobs, expected);
    await checkInvariants(m, r);
  }

  toString(): string {
    return `finish(held#${this.pick}, ${this.outcome})`;
  }
}
