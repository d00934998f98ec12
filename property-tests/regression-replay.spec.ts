import { describe, expect, it } from "vitest";
import { ENGINES, engineAvailable } from "@verq/testing";
import { FIXTURE_MUTANT, FIXTURE_REGRESSIONS_DIR } from "./fixtures/save-mutant-regression.ts";
import { jobMutants } from "./jobs/mutants.ts";
import { jobsProperty } from "./jobs/jobs.property.ts";
import { runJobsModel } from "./jobs/run-jobs-model.ts";
import { PropertyFailed } from "./property-failure.ts";
import { counterexampleOf, loadRegressions } from "./regression.ts";
import { replayRegression } from "./search-and-keep.ts";
import { storeFactory } from "./store-factory.ts";

/**
 * A committed regression file replays its case: the fixture is the counterexample the jobs
 * property found against the mutant "finish ignores the token" (a stale finish accepted), saved
 * as a regression of `jobs-model`. Replayed from the file, it fails the mutant by the same rule
 * on every engine, in one run, and passes on the real code, through the same path that replays
 * `property-tests/regressions/`.
 */
const fixtures = loadRegressions(FIXTURE_REGRESSIONS_DIR, jobsProperty.name);

describe("the fixture regression", () => {
  it("is one model-based case, with its commands' replay path", () => {
    expect(fixtures).toHaveLength(1);
    expect(fixtures[0]?.regression.replayPath).toMatch(/^[A-Za-z0-9+/:]+$/);
  });
});

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] replaying a committed regression file`, () => {
    it.each(fixtures)("$file fails the mutant it was found on, in one run", async ({ regression }) => {
      const failure = await runJobsModel({
        name: `jobs-mutant ${FIXTURE_MUTANT} [${engine}]`,
        stores: storeFactory(engine),
        decider: jobMutants[FIXTURE_MUTANT],
        replay: counterexampleOf(regression),
        numRuns: 1,
      }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(PropertyFailed);
      expect((failure as PropertyFailed).message).toMatch(/Got error: \[(b J4|J4 finishMany|heartbeat)\]/);
      expect((failure as PropertyFailed).summary.numRuns).toBe(1);
    });

    it.each(fixtures)("$file passes on the real code", async (loaded) => {
      const summary = await replayRegression(jobsProperty, engine, loaded);
      expect(summary).toMatchObject({ seed: loaded.regression.seed, interrupted: false });
      // The counterexample's own case first; a passing replay of a shrink path then goes on through
      // the siblings its node has left in the shrink tree, so one run or a few, never a new search.
      expect(summary.numRuns).toBeGreaterThanOrEqual(1);
      expect(summary.numRuns).toBeLessThanOrEqual(20);
    });
  });
}
