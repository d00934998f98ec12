import { describe, expect, it } from "vitest";
import { ENGINES, engineAvailable } from "@verq/testing";
import { mutantOutcome } from "../mutant-outcome.ts";
import { scheduleMutants } from "./mutants.ts";
import { runSchedulesModel } from "./run-schedules-model.ts";

/** The rule each mutant must be caught by: the `[tag]` of the property that fails first. */
const CAUGHT_BY: Readonly<Record<string, RegExp>> = {
  "job id without the slot": /Got error: \[policy\]/,
  "re-fire a recorded slot under another id": /Got error: \[(slot once|policy)\]/,
  "a slot exactly at now is not due": /Got error: \[policy\]/,
};

/**
 * The schedules property has teeth: run against each deliberately broken machine, it must fail,
 * by the rule the mutant breaks, on every engine (on PostgreSQL, on the counterexample SQLite found).
 */
for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the schedules property catches broken machines`, () => {
    it.each(Object.entries(scheduleMutants))("mutant %s is caught", async (name, decider) => {
      const failure = await mutantOutcome(engine, name, (stores, replay) =>
        runSchedulesModel({
          name: `schedules-mutant ${name} [${stores.engine}]`,
          stores,
          decider,
          ...(replay === undefined ? { numRuns: 200 } : { numRuns: 1, replay }),
        }),
      );
      expect(failure, `the property passed with the mutant "${name}"`).toBeInstanceOf(Error);
      expect((failure as Error).message).toMatch(CAUGHT_BY[name] ?? /Got error: \[/);
    });
  });
}

describe("the schedules mutants", () => {
  it("names the rule that catches every mutant", () => {
    expect(Object.keys(CAUGHT_BY).sort()).toEqual(Object.keys(scheduleMutants).sort());
  });
});
