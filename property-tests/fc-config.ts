import fc from "fast-check";
import type { Counterexample } from "./property-failure.ts";
import { searchBox } from "./search-box.ts";

/** The fixed seed of every property's regression run (and of the mutant suites), unless `FC_FIXED_SEED` says. */
export const CI_SEED = 20_251_201;

/** Runs of a fresh search when its caller gives none: so many that its time box, not the count, ends it. */
export const UNBOUNDED_RUNS = 1_000_000_000;

/**
 * A search from a new seed, instead of the fixed one: each CI run tries cases no run tried
 * before. Every field has a default read from the environment.
 */
export interface FreshSearch {
  /** The seed: `FC_SEED` when set (to replay a failure, with `FC_PATH`), else a random one. */
  readonly seed?: number;
  /** Most runs: {@link UNBOUNDED_RUNS} by default, so that `boxMs` ends the search. */
  readonly numRuns?: number;
  /** No run begins this long after the start (see `searchBox`); none: `numRuns` ends the search. */
  readonly boxMs?: number;
  /** Shrinking a failure stops this long after the start; none: it shrinks to the end. */
  readonly shrinkLimitMs?: number;
}

/** What a property may default; the environment overrides each. */
export interface FcDefaults {
  /** Runs when `FC_NUM_RUNS` is not set. */
  readonly numRuns: number;
  /** A run longer than this fails loudly instead of passing on fewer runs (`FC_TIME_LIMIT_MS`). */
  readonly timeLimitMs?: number;
  /**
   * A counterexample found before (on another engine, or committed as a regression) to start
   * from: its seed and path stand for the seed and `FC_PATH`, the run ends at its first failure
   * without shrinking (the counterexample is shrunk already), and `numRuns` is this one's,
   * whatever `FC_NUM_RUNS` says. While the runs pass, the search goes on from there (the
   * counterexample's shrink siblings, or the runs after it), up to `numRuns`.
   */
  readonly replay?: Counterexample;
  /** A fresh search instead of the fixed seed; ignored with `replay`. */
  readonly fresh?: FreshSearch;
}

/**
 * How long a search may run before it fails as interrupted: a guard against a search that never
 * ends, not a speed check. Its runs share the machine with the test files that run beside it (two
 * at a time), so the longest fixed search, about 30 s on a quiet machine, gets five times that.
 * Below vitest's test timeout (vitest.config.ts), so that the interruption is what is reported.
 */
export const DEFAULT_TIME_LIMIT_MS = 150_000;

/**
 * Parameters for `fc.assert` of the property `name`, from `defaults` and the environment. Three
 * kinds of search:
 *
 * - fixed (the default): seed `FC_FIXED_SEED`, else {@link CI_SEED}; `FC_NUM_RUNS` runs, else
 *   `defaults.numRuns`; interrupted as a failure after `FC_TIME_LIMIT_MS` ({@link DEFAULT_TIME_LIMIT_MS} by default);
 * - fresh (`defaults.fresh`): seed `FC_SEED`, else random, and `FC_PATH` to replay a failure it
 *   printed (a model-based property also needs `FC_REPLAY_PATH`, see {@link commandsReplayPath});
 *   it ends cleanly at its time box;
 * - replay (`defaults.replay`): the counterexample's seed and path, ending at the first failure.
 *
 * Prints one line before the run, `[fc] <name> seed=<seed> numRuns=<n>`, or for a fresh search
 * `[fc] <name> fresh seed=<seed> box=<ms>ms`, so that any failure can be replayed; fast-check's
 * own failure message repeats the seed and adds the path.
 *
 * @example await fc.assert(property, fcConfig("jobs-model", { numRuns: 100 }));
 */
export function fcConfig<T>(name: string, defaults: FcDefaults): fc.Parameters<T> {
  const { replay, fresh } = defaults;
  if (replay !== undefined) return replayConfig(name, defaults.numRuns, replay);
  if (fresh !== undefined) return freshConfig(name, fresh);
  const seed = readInteger("FC_FIXED_SEED") ?? CI_SEED;
  const numRuns = readInteger("FC_NUM_RUNS") ?? defaults.numRuns;
  if (numRuns < 1) throw new RangeError("FC_NUM_RUNS must be at least 1");
  const timeLimitMs = readInteger("FC_TIME_LIMIT_MS") ?? defaults.timeLimitMs ?? DEFAULT_TIME_LIMIT_MS;
  console.log(`[fc] ${name} seed=${seed} numRuns=${numRuns}`);
  return {
    seed,
    numRuns,
    includeErrorInReport: true,
    plugins: [fc.interruptAfterTimeLimit(timeLimitMs, { failOnInterrupt: true })],
  };
}

function replayConfig<T>(name: string, numRuns: number, replay: Counterexample): fc.Parameters<T> {
  const replayPath = replay.replayPath === undefined ? "" : ` replayPath=${replay.replayPath}`;
  console.log(`[fc] ${name} seed=${replay.seed} numRuns=${numRuns} path=${replay.path}${replayPath}`);
  return { seed: replay.seed, numRuns, path: replay.path, endOnFailure: true, includeErrorInReport: true };
}

function freshConfig<T>(name: string, fresh: FreshSearch): fc.Parameters<T> {
  const seed = fresh.seed ?? readInteger("FC_SEED") ?? randomSeed();
  const path = replayedFromEnv(fresh) ? readText("FC_PATH") : undefined;
  const replayPath = commandsReplayPath({ fresh });
  const numRuns = fresh.numRuns ?? UNBOUNDED_RUNS;
  const shown = [
    fresh.boxMs === undefined ? ` numRuns=${numRuns}` : ` box=${fresh.boxMs}ms`,
    path === undefined ? "" : ` path=${path}`,
    replayPath === undefined ? "" : ` replayPath=${replayPath}`,
  ];
  console.log(`[fc] ${name} fresh seed=${seed}${shown.join("")}`);
  const plugins: fc.Plugin<T>[] = [];
  if (fresh.shrinkLimitMs !== undefined)
    plugins.push(fc.interruptAfterTimeLimit(fresh.shrinkLimitMs, { failOnInterrupt: false }));
  if (fresh.boxMs !== undefined) plugins.push(searchBox(fresh.boxMs));
  return { seed, numRuns, ...(path === undefined ? {} : { path }), includeErrorInReport: true, plugins };
}

/** A path belongs to the seed it was printed with: only a fresh search on `FC_SEED` reads `FC_PATH` and `FC_REPLAY_PATH`. */
function replayedFromEnv(fresh: FreshSearch | undefined): boolean {
  return fresh !== undefined && fresh.seed === undefined && readInteger("FC_SEED") !== undefined;
}

/**
 * For `fc.commands({ replayPath })` of a search made with `search` (the `replay` and `fresh` of
 * {@link FcDefaults}): the replay path of `search.replay` when given, else for a fresh search on
 * `FC_SEED` the `FC_REPLAY_PATH`, the `replayPath="…"` that fast-check prints inside a command
 * counterexample. Replaying a command sequence with a seed and `FC_PATH` alone fails with
 * "Unable to replay, got wrong path", because which commands ran is part of the path.
 *
 * @example FC_SEED=42 FC_PATH="62:0:7" FC_REPLAY_PATH="ECADAACCABAGAKCv:qqK" npx vitest run property-tests/jobs -t fresh
 */
export function commandsReplayPath(search: Pick<FcDefaults, "replay" | "fresh">): string | undefined {
  if (search.replay !== undefined) return search.replay.replayPath;
  return replayedFromEnv(search.fresh) ? readText("FC_REPLAY_PATH") : undefined;
}

/** A seed no earlier run is likely to have used: fast-check's own default, `Date.now()`, would repeat within a millisecond. */
function randomSeed(): number {
  return Math.floor(Math.random() * 0x7fff_ffff);
}

function readText(name: string): string | undefined {
  const text = process.env[name];
  return text === undefined || text === "" ? undefined : text;
}

/** The integer in the environment variable `name`, or undefined when it is unset or empty. */
export function readInteger(name: string): number | undefined {
  const text = process.env[name];
  if (text === undefined || text.trim() === "") return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be an integer, got ${JSON.stringify(text)}`);
  return value;
}

/** How a property's run function is asked to search; the fields every `run*Model` takes. */
export interface SearchOptions {
  /** A counterexample to run first (see {@link FcDefaults.replay}). */
  readonly replay?: Counterexample;
  /** Runs of a fixed or replay search when `FC_NUM_RUNS` is not set; the property's own default when omitted. */
  readonly numRuns?: number;
  /** A fresh search instead of the fixed seed (see {@link FreshSearch}). */
  readonly fresh?: FreshSearch;
}

/** The {@link FcDefaults} of a search asked with `options`, `numRuns` when it gives none. */
export function searchDefaults(options: SearchOptions, numRuns: number): FcDefaults {
  return { numRuns: options.numRuns ?? numRuns, replay: options.replay, fresh: options.fresh };
}
