import { describe, expect, it } from "vitest";
import { jobMutants } from "./mutants.ts";
import { runJobsModel } from "./run-jobs-model.ts";

/**
 * The property suite has teeth: run against each deliberately broken machine, it must fail.
 * Counterexamples found (fixed CI seed): see the comment on each mutant in mutants.ts.
 */
describe("the jobs property suite catches broken machines", () => {
  it.each(Object.entries(jobMutants))("mutant %s is caught", async (name, decider) => {
    await expect(runJobsModel({ name: `jobs-mutant ${name}`, decider, numRuns: 300 })).rejects.toThrow(/Property failed/);
  });
});
