import { describe, expect, it } from "vitest";
import { ENGINES, engineAvailable } from "@verq/testing";
import { mutantOutcome } from "../mutant-outcome.ts";
import { guidMutants } from "./mutants.ts";
import { runLedgerModel } from "./run-ledger-model.ts";

/**
 * The check each mutant must be caught by: the `[tag]` of the property that fails first. A
 * mutant that fails for another reason (an interrupt, a crash) does not count as caught.
 */
const CAUGHT_BY: Readonly<Record<string, RegExp>> = {
  // A young entry counted as kept (the CI seed), or a young DONE entry purged.
  "purge ignores retention": /Got error: \[purge (result|events)\]/,
  // No VERQ_PURGE_RETENTION_TOO_SHORT (the CI seed), or an entry purged the machine keeps.
  "purge takes a retention shorter than the resend window": /Got error: \[purge (result|events)\]/,
  "a receipt takes any GUID": /Got error: \[receive events\]/,
};

/**
 * The ledger property has teeth: the ledger running each broken machine must fail it, by the
 * check named for the mutant, because every GuidLedger write is compared with the real machine.
 * On every engine: on PostgreSQL, on the counterexample SQLite found (see `mutantOutcome`).
 */
for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the ledger property suite catches broken guid machines`, () => {
    it.each(Object.entries(guidMutants))("mutant %s is caught", async (name, decider) => {
      const caughtBy = CAUGHT_BY[name] ?? /Got error: \[/;
      const failure = await mutantOutcome(engine, name, (stores, replay) =>
        runLedgerModel({
          name: `ledger-mutant ${name} [${stores.engine}]`,
          stores,
          decider,
          ...(replay === undefined ? { numRuns: 300 } : { numRuns: 1, replay }),
        }),
      );
      expect(failure, `the property passed with the mutant "${name}"`).toBeInstanceOf(Error);
      expect((failure as Error).message).toMatch(caughtBy);
    });
  });
}

describe("the ledger mutants", () => {
  it("names the check that catches every mutant", () => {
    expect(Object.keys(CAUGHT_BY).sort()).toEqual(Object.keys(guidMutants).sort());
  });
});
