import { describe, it } from "vitest";
import { engineAvailable } from "@verq/testing";
import { propertyLabel, type CheckedProperty } from "./checked-property.ts";
import { freshSearch } from "./fresh-box.ts";
import { loadRegressions, REGRESSIONS_DIR } from "./regression.ts";
import { replayRegression, searchAndKeep } from "./search-and-keep.ts";

/** The titles of a property's tests. */
export interface PropertyTitles {
  /** The `describe` title, after the engine: `job queue against its reference model (SPEC J1-J6)`. */
  readonly describe: string;
  /** What the property holds: the fixed and the fresh search are two tests of this title. */
  readonly it: string;
  /** A longer timeout than vitest's, for a property whose runs are long. */
  readonly timeoutMs?: number;
}

/**
 * Declares the tests of `property` on each of its engines, in the order they run:
 *
 * 1. every committed regression of the property (`property-tests/regressions/<name>/*.json`),
 *    one test each, replayed with its seed, path and replay path on every engine;
 * 2. the fixed search: the regression seed `CI_SEED`, the property's run count, failing loudly
 *    at its time limit;
 * 3. the fresh search: a new seed each run (`FC_SEED` replays one), boxed at a few seconds
 *    (`FC_FRESH_MS`; 0 leaves it out), so that every CI run tries cases none tried before.
 *
 * A failing search saves its shrunk case as a regression file and fails, naming the file.
 */
export async function describeProperty(property: CheckedProperty, titles: PropertyTitles): Promise<void> {
  const regressions = loadRegressions(REGRESSIONS_DIR, property.name);
  const options = titles.timeoutMs === undefined ? {} : { timeout: titles.timeoutMs };
  for (const engine of property.engines) {
    const available = engine === null || (await engineAvailable(engine));
    describe.skipIf(!available)(`${engine === null ? "" : `[${engine}] `}${titles.describe}`, () => {
      it.each(regressions)("replays the committed regression $file", options, async (loaded) => {
        await replayRegression(property, engine, loaded);
      });
      it(`${titles.it} (fixed seed)`, options, async () => {
        const { failure } = await searchAndKeep(property, engine, {}, REGRESSIONS_DIR);
        if (failure !== null) throw failure.error;
      });
      it(`${titles.it} (fresh seed)`, options, async () => {
        const fresh = freshSearch(engine);
        if (fresh === null) return console.log(`[fc] ${property.name}: no fresh search (FC_FRESH_MS=0)`);
        const { summary, failure } = await searchAndKeep(property, engine, { fresh }, REGRESSIONS_DIR);
        if (failure !== null) throw failure.error;
        console.log(`[fc] ${propertyLabel(property.name, engine)} fresh seed=${summary.seed}: ${summary.numRuns} runs passed`);
      });
    });
  }
}
