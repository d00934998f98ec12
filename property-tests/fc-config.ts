import fc from "fast-check";
import type { Counterexample } from "./property-failure.ts";

/** The seed used in CI when `FC_SEED` is not set, so that CI runs are reproducible. */
export const CI_SEED = 20_251_201;

/** What a property may default; the environment overrides each. */
export interface FcDefaults {
  /** Runs when `FC_NUM_RUNS` is not set. */
  readonly numRuns: number;
  /** A run longer than this fails loudly instead of passing on fewer runs (`FC_TIME_LIMIT_MS`). */
  readonly timeLimitMs?: number;
  /**
   * A counterexample another run found (on another engine) to start from: its seed and path
   * stand for `FC_SEED` and `FC_PATH`, and the run ends at its first failure without shrinking
   * (the counterexample is shrunk already). While the runs pass, the search goes on from there
   * (the counterexample's shrink siblings, or the runs after it), up to `numRuns`.
   */
  readonly replay?: Counterexample;
}

/**
 * Parameters for `fc.assert` of the property `name`, read from the environment:
 *
 * - `FC_SEED`: the seed (an integer); in CI (`CI=true`) {@link CI_SEED} when unset, else time-based;
 * - `FC_PATH`: replay path of a counterexample (use with the `FC_SEED` it was printed with);
 *   a model-based property also needs `FC_REPLAY_PATH` (see {@link commandsReplayPath});
 * - `FC_NUM_RUNS`: number of runs, `defaults.numRuns` when unset;
 * - `FC_TIME_LIMIT_MS`: interrupt (as a failure) after this long, 45 s by default;
 * - `defaults.replay`, when given, instead of `FC_SEED` and `FC_PATH`.
 *
 * Prints one line, `[fc] <name> seed=<seed> numRuns=<n>`, so that any failure can be replayed
 * with `FC_SEED=<seed>`; fast-check's own failure message repeats the seed and adds the path.
 *
 * @example await fc.assert(property, fcConfig("jobs-model", { numRuns: 100 }));
 */
export function fcConfig<T>(name: string, defaults: FcDefaults): fc.Parameters<T> {
  const env = process.env;
  const { replay } = defaults;
  const seed = replay?.seed ?? readInteger("FC_SEED") ?? (isCi() ? CI_SEED : Date.now() % 0x7fff_ffff);
  const numRuns = readInteger("FC_NUM_RUNS") ?? defaults.numRuns;
  if (numRuns < 1) throw new RangeError("FC_NUM_RUNS must be at least 1");
  const timeLimitMs = readInteger("FC_TIME_LIMIT_MS") ?? defaults.timeLimitMs ?? 45_000;
  const path = replay?.path ?? (env["FC_PATH"] === undefined || env["FC_PATH"] === "" ? undefined : env["FC_PATH"]);
  const replayPath = commandsReplayPath(replay);
  const shown = [path === undefined ? "" : ` path=${path}`, replayPath === undefined ? "" : ` replayPath=${replayPath}`];
  console.log(`[fc] ${name} seed=${seed} numRuns=${numRuns}${shown.join("")}`);
  return {
    seed,
    numRuns,
    ...(path === undefined ? {} : { path }),
    ...(replay === undefined ? {} : { endOnFailure: true }),
    includeErrorInReport: true,
    plugins: [fc.interruptAfterTimeLimit(timeLimitMs, { failOnInterrupt: true })],
  };
}

/**
 * For `fc.commands({ replayPath })`: the replay path of `replay` when given, else
 * `FC_REPLAY_PATH`, the `replayPath="…"` that fast-check prints inside a command counterexample.
 * Replaying a command sequence with `FC_SEED` and `FC_PATH` alone fails with "Unable to replay,
 * got wrong path", because which commands ran is part of the path.
 *
 * @example FC_SEED=42 FC_PATH="62:0:7" FC_REPLAY_PATH="ECADAACCABAGAKCv:qqK" npx vitest run property-tests/jobs
 */
export function commandsReplayPath(replay?: Counterexample): string | undefined {
  if (replay !== undefined) return replay.replayPath;
  const path = process.env["FC_REPLAY_PATH"];
  return path === undefined || path === "" ? undefined : path;
}

function isCi(): boolean {
  const ci = process.env["CI"];
  return ci === "true" || ci === "1";
}

function readInteger(name: string): number | undefined {
  const text = process.env[name];
  if (text === undefined || text.trim() === "") return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be an integer, got ${JSON.stringify(text)}`);
  return value;
}
