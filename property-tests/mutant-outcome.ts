import type { Engine } from "@verq/testing";
import { PropertyFailed, type Counterexample } from "./property-failure.ts";
import { storeFactory, type StoreFactory, type StoreFactoryOptions } from "./store-factory.ts";

/** Runs a property suite against one mutant on `stores`, from `replay` when given; rejects when the property fails. */
export type MutantRun = (stores: StoreFactory, replay?: Counterexample) => Promise<unknown>;

/** The engine that searches for counterexamples: the one whose runs cost least. */
const SEARCH_ENGINE: Engine = "sqlite";

/** The searches run so far in this file, by mutant: the SQLite test and the PostgreSQL test of a mutant share one. */
const searches = new Map<string, Promise<unknown>>();

const outcome = (run: Promise<unknown>): Promise<unknown> =>
  run.then(
    () => null,
    (error: unknown) => error,
  );

/**
 * How a property suite fails with the mutant `key` on `engine`: the error it rejected with, or
 * null when it passed (the mutant was not caught).
 *
 * On SQLite this is the search itself. On PostgreSQL, where a run costs about ten times as
 * much, the suite runs the counterexample that the SQLite search found: the same seed and the
 * same path give the same commands, so PostgreSQL gets the very case that broke the mutant on
 * SQLite, shrunk already, and must fail on it by the same rule. The runs SQLite passed before it
 * are not run again. One search serves both tests of a mutant in a file; a test run alone
 * searches for itself. Throws when the SQLite search found nothing to replay.
 */
export async function mutantOutcome(
  engine: Engine,
  key: string,
  run: MutantRun,
  options: StoreFactoryOptions = {},
): Promise<unknown> {
  let search = searches.get(key);
  if (search === undefined) {
    search = outcome(run(storeFactory(SEARCH_ENGINE, options)));
    searches.set(key, search);
  }
  const found = await search;
  if (engine === SEARCH_ENGINE) return found;
  if (!(found instanceof PropertyFailed) || found.counterexample === null) {
    throw new Error(`mutant ${key}: the ${SEARCH_ENGINE} search found no counterexample to run on ${engine}`, { cause: found });
  }
  return outcome(run(storeFactory(engine, options), found.counterexample));
}
