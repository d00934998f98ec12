import { describe, expect, it } from "vitest";
import { ENGINES, engineAvailable } from "@verq/testing";
import { mutantOutcome } from "../mutant-outcome.ts";
import { claimOrderMutants, jobMutants, kindMutants } from "./mutants.ts";
import { runJobsModel, type RunJobsModelOptions } from "./run-jobs-model.ts";

/**
 * The rule each mutant must be caught by: the `[tag]` of the property that fails first. A
 * mutant that fails for another reason (an interrupt, a crash) does not count as caught.
 * Over 30 seeds the slowest mutant was caught within 178 runs; 600 leaves a wide margin and
 * costs nothing when the mutant is caught early (fast-check stops at the first failure). The
 * retention mutants, over seeds 1-20 each: caught within 33 runs.
 */
const CAUGHT_BY: Readonly<Record<string, RegExp>> = {
  "redrive resets the token": /Got error: \[a tokens\]/,
  // The fencing guard is shared by heartbeat: a stale heartbeat being accepted is caught too, and
  // a batch finish's answers may show it first.
  "finish ignores the token": /Got error: \[(b J4|J4 finishMany|heartbeat)\]/,
  "lease boundary off by one": /Got error: \[(model|J3 claim|J3 claimMany|J3 claimKinds)\]/,
  "claim keeps the token": /Got error: \[a tokens\]/,
  "heartbeat revives an expired lease": /Got error: \[heartbeat\]/,
  // Only a backwards clock jump (clockJump) tells it from the real machine.
  "a backwards clock jump ends leases": /Got error: \[heartbeat\]/,
  // Every finish's writes are compared with the real machine's decision: that check may see it first.
  "deadline checked before the budget": /Got error: \[(model|J4 retry|decided finish|decided finishMany)\]/,
  "enqueue accepts a conflicting payload": /Got error: \[J2 conflict\]/,
  "redrive ignores the rate limit": /Got error: \[J6 VERQ_REDRIVE_RATE_LIMITED\]/,
  // A batch finish, a heartbeat-free finish or the invariant over the log may see it first.
  "a cancelled lease still finishes": /Got error: \[(b J4|J4 finishMany|decided finish|decided finishMany|cancel never ok)\]/,
  "cancel ignores the note rule": /Got error: \[(cancel VERQ_INVALID_NOTE|decided cancel)\]/,
  "claim ignores the queue limit": /Got error: \[queue limit\]/,
  // A dry run shows which jobs a prune takes only in its result's counts.
  "prune cutoff off by one": /Got error: \[prune (cutoff|result)\]/,
  "prune ignores the cutoff": /Got error: \[prune (cutoff|result)\]/,
  "claim takes the lowest priority first": /Got error: \[claim order\]/,
  "a stale failure is recorded": /Got error: \[stale fail\]/,
  "claims ignore kinds": /Got error: \[kinds\]/,
};

/** Every mutant: a broken machine (`decider`), a broken claim candidate query (`claimCandidates`), or both. */
const mutants: readonly (readonly [string, Pick<RunJobsModelOptions, "decider" | "claimCandidates">])[] = [
  ...Object.entries(jobMutants).map(([name, decider]) => [name, { decider }] as const),
  ...Object.entries(claimOrderMutants).map(([name, claimCandidates]) => [name, { claimCandidates }] as const),
  ...Object.entries(kindMutants),
];

/**
 * The property suite has teeth: run against each deliberately broken machine, it must fail, and
 * by the rule the mutant breaks, on every engine (on PostgreSQL, on the counterexample SQLite
 * found: see `mutantOutcome`). Counterexamples found: see the comment on each mutant in mutants.ts.
 */
for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the jobs property suite catches broken machines`, () => {
    it.each(mutants)("mutant %s is caught", async (name, mutant) => {
      const caughtBy = CAUGHT_BY[name] ?? /Got error: \[/;
      const failure = await mutantOutcome(engine, name, (stores, replay) =>
        runJobsModel({
          name: `jobs-mutant ${name} [${stores.engine}]`,
          stores,
          ...mutant,
          ...(replay === undefined ? { numRuns: 600 } : { numRuns: 1, replay }),
        }),
      );
      expect(failure, `the property passed with the mutant "${name}"`).toBeInstanceOf(Error);
      expect((failure as Error).message).toMatch(caughtBy);
    });
  });
}

describe("the jobs mutants", () => {
  it("names the rule that catches every mutant", () => {
    expect(Object.keys(CAUGHT_BY).sort()).toEqual(mutants.map(([name]) => name).sort());
  });
});
