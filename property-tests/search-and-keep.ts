import { join, relative } from "node:path";
import type { SearchOptions } from "./fc-config.ts";
import type { CheckedProperty, PropertyEngine } from "./checked-property.ts";
import { PropertyFailed, type RunSummary } from "./property-failure.ts";
import { counterexampleOf, errorLine, saveRegression, type LoadedRegression } from "./regression.ts";

/** How one search of a property ended: what it did, and its failure, if it failed. */
export interface SearchResult {
  readonly summary: RunSummary;
  /** Null when the property held. */
  readonly failure: null | {
    /** The error to report: fast-check's report, and where the case was saved. */
    readonly error: Error;
    /** The regression file written, relative to the current folder; null when there was no counterexample to save. */
    readonly file: string | null;
  };
}

/**
 * Runs one search of `property` on `engine` and, when it fails with a counterexample (shrunk by
 * fast-check), saves the case as a regression under `root` (see `saveRegression`): the result's
 * error is fast-check's report (seed, path, replay path, the shrunk case) followed by the file
 * to commit and its content, so that a CI run, whose files are lost, still says what to commit.
 * Errors other than a property failure (a broken harness) are rethrown.
 */
export async function searchAndKeep(
  property: CheckedProperty,
  engine: PropertyEngine,
  search: SearchOptions,
  root: string,
): Promise<SearchResult> {
  try {
    return { summary: await property.run(engine, search), failure: null };
  } catch (error) {
    if (!(error instanceof PropertyFailed)) throw error;
    const { counterexample } = error;
    if (counterexample === null) return { summary: error.summary, failure: { error, file: null } };
    const regression = {
      property: property.name,
      engine,
      seed: counterexample.seed,
      path: counterexample.path,
      replayPath: counterexample.replayPath ?? null,
      found: new Date().toISOString(),
      message: errorLine(error.message),
    };
    const file = relative(process.cwd(), join(root, saveRegression(root, regression)));
    const kept = new PropertyFailed(
      `${error.message}\n\nSaved as ${file}: commit it, and every later run replays this case first on every engine:\n${JSON.stringify(regression)}`,
      counterexample,
      error.summary,
    );
    return { summary: error.summary, failure: { error: kept, file } };
  }
}

/**
 * Replays the committed regression `loaded` of `property` on `engine`: one run from its seed,
 * path and replay path, ending at the first failure. Rejects, naming the file, when it fails
 * again.
 */
export async function replayRegression(
  property: CheckedProperty,
  engine: PropertyEngine,
  loaded: LoadedRegression,
): Promise<RunSummary> {
  try {
    return await property.run(engine, { replay: counterexampleOf(loaded.regression), numRuns: 1 });
  } catch (error) {
    if (!(error instanceof PropertyFailed)) throw error;
    const { found, engine: on, message } = loaded.regression;
    throw new PropertyFailed(
      `the regression ${loaded.file} (found ${found} on ${on ?? "no engine"}: ${message}) fails again\n\n${error.message}`,
      error.counterexample,
      error.summary,
    );
  }
}
