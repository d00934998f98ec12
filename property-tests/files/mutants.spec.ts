import { describe, expect, it } from "vitest";
import { ENGINES, engineAvailable } from "@verq/testing";
import { mutantOutcome } from "../mutant-outcome.ts";
import { messageMutants } from "./mutants.ts";
import { runFilesModel } from "./run-files-model.ts";

/**
 * The check each mutant must be caught by: the `[tag]` of the property that fails first. A
 * mutant that fails for another reason (an interrupt, a crash) does not count as caught.
 */
const CAUGHT_BY: Readonly<Record<string, RegExp>> = {
  // It answers a refusal where the machine answers `already` (the CI seed), or writes events the machine refuses.
  "a settled claim settles again": /Got error: \[settle (events|result)\]/,
  "a new stream takes any file name": /Got error: \[settle events\]/,
};

/**
 * The files property has teeth: the ledger running each broken machine must fail it, by the
 * check named for the mutant, because every FileLedger write is compared with the real machine.
 * On every engine: on PostgreSQL, on the counterexample SQLite found (see `mutantOutcome`).
 */
for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(
    `[${engine}] the files property suite catches broken message machines`,
    () => {
      it.each(Object.entries(messageMutants))("mutant %s is caught", async (name, decider) => {
        const caughtBy = CAUGHT_BY[name] ?? /Got error: \[/;
        const failure = await mutantOutcome(engine, name, (stores, replay) =>
          runFilesModel({
            name: `files-mutant ${name} [${stores.engine}]`,
            stores,
            decider,
            ...(replay === undefined ? { numRuns: 300 } : { numRuns: 1, replay }),
          }),
        );
        expect(failure, `the property passed with the mutant "${name}"`).toBeInstanceOf(Error);
        expect((failure as Error).message).toMatch(caughtBy);
      });
    },
  );
}

describe("the files mutants", () => {
  it("names the check that catches every mutant", () => {
    expect(Object.keys(CAUGHT_BY).sort()).toEqual(Object.keys(messageMutants).sort());
  });
});
