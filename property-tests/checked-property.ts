import type { Engine } from "@verq/testing";
import type { SearchOptions } from "./fc-config.ts";
import type { RunSummary } from "./property-failure.ts";

/** The engine a property runs on; null for a property that opens no store (the machines' tables). */
export type PropertyEngine = Engine | null;

/**
 * A property of the real code, as its test file and `pnpm fuzz` both run it: one function that
 * makes one search (fixed seed, fresh seed, or the replay of a counterexample) on one engine.
 * Its name names its regressions folder; mutant suites call the `run*` functions directly.
 */
export interface CheckedProperty {
  /** `jobs-model`, `table-job`: printed with each seed, and the folder of its regressions. */
  readonly name: string;
  /** The folder of its suite under `property-tests/` (`jobs`, `machines`), which `pnpm fuzz --property` also matches. */
  readonly suite: string;
  /** Where it runs: every engine for a store's property, `[null]` for one without a store. */
  readonly engines: readonly PropertyEngine[];
  /** Runs one search on `engine`; rejects with a `PropertyFailed` when the property fails. */
  run(engine: PropertyEngine, search: SearchOptions): Promise<RunSummary>;
}

/** `jobs-model [sqlite]`, or the bare name for a property without a store: the name printed in `[fc]` lines. */
export function propertyLabel(name: string, engine: PropertyEngine): string {
  return engine === null ? name : `${name} [${engine}]`;
}

/**
 * A {@link CheckedProperty} that runs on every engine in `engines`, from `run`, which gets the
 * engine and the label to print.
 */
export function storeProperty(
  name: string,
  suite: string,
  engines: readonly Engine[],
  run: (engine: Engine, label: string, search: SearchOptions) => Promise<RunSummary>,
): CheckedProperty {
  return {
    name,
    suite,
    engines,
    run: (engine, search) => {
      if (engine === null) return Promise.reject(new Error(`${name} runs on a store: give it an engine`));
      return run(engine, propertyLabel(name, engine), search);
    },
  };
}
