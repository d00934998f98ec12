import { describe, expect, it } from "vitest";
import { ENGINES, engineAvailable } from "@verq/testing";
import { mutantOutcome } from "../mutant-outcome.ts";
import { relayMutants } from "./mutants.ts";
import { runRelayModel } from "./run-relay-model.ts";

/**
 * The relay property has teeth: run against each deliberately broken relay, it must fail, and
 * with the tag of the rule the mutant breaks, on every engine (on PostgreSQL, on the
 * counterexample SQLite found: see `mutantOutcome`; one connection, so that the scheduler's
 * order replays). Counterexamples: see mutants.ts.
 */
for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the relay property catches broken relays`, () => {
    it.each([
      ["claim by lookup-then-insert", /\[(answers|at-most-once)\]/],
      ["claim by lookup-then-insert, SENT step trusting the claim", /\[at-most-once\]/],
      ["resolve ignores the min age", /\[(at-most-once|ledger)\]/],
      ["reprocess takes UNKNOWN", /\[at-most-once\]/],
      ["reprocess under a new GUID", /\[(same-guid|at-most-once)\]/],
      ["purge ignores retention", /\[purge\]/],
      ["purge deletes UNKNOWN", /\[(purge|ledger)\]/],
    ] as const)("mutant %s is caught", async (name, tag) => {
      const variant = relayMutants[name];
      if (variant === undefined) throw new Error(`no mutant ${name}`);
      const failure = await mutantOutcome(
        engine,
        name,
        (stores, replay) =>
          runRelayModel({
            name: `relay-mutant ${name} [${stores.engine}]`,
            stores,
            variant,
            ...(replay === undefined ? { numRuns: 1_000, minRuns: 1_000 } : { numRuns: 1, replay }),
          }),
        { oneConnection: true },
      );
      expect(failure, `the property passed with the mutant "${name}"`).toBeInstanceOf(Error);
      expect((failure as Error).message).toMatch(/Property failed/);
      expect((failure as Error).message).toMatch(tag);
    });
  });
}
