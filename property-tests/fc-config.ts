import fc from "fast-check";

/** The seed used in CI when `FC_SEED` is not set, so that CI runs are reproducible. */
export const CI_SEED = 20_251_201;

/** What a property may default; the environment overrides each. */
export interface FcDefaults {
  /** Runs when `FC_NUM_RUNS` is not set. */
  readonly numRuns: number;
  /** A run longer than this fails loudly instead of passing on fewer runs (`FC_TIME_LIMIT_MS`). */
  readonly timeLimitMs?: number;
}

/**
 * Parameters for `fc.assert` of the property `name`, read from the environment:
 *
 * - `FC_SEED`: the seed (an integer); in CI (`CI=true`) {@link CI_SEED} when unset, else time-based;
 * - `FC_PATH`: replay path of a counterexample (use with the `FC_SEED` it was printed with);
 *   a model-based property also needs `FC_REPLAY_PATH` (see {@link commandsReplayPath});
 * - `FC_NUM_RUNS`: number of runs, `defaults.numRuns` when unset;
 * - `FC_TIME_LIMIT_MS`: interrupt (as a failure) after this long, 45 s by default.
 *
 * Prints one line, `[fc] <name> seed=<seed> numRuns=<n>`, so that any failure can be replayed
 * with `FC_SEED=<seed>`; fast-check's own failure message repeats the seed and adds the path.
 *
 * @example await fc.assert(property, fcConfig("jobs-model", { numRuns: 100 }));
 */
export function fcConfig<T>(name: string, defaults: FcDefaults): fc.Parameters<T> {
  const env = process.env;
  const seed = readInteger("FC_SEED") ?? (isCi() ? CI_SEED : Date.now() % 0x7fff_ffff);
  const numRuns = readInteger("FC_NUM_RUNS") ?? defaults.numRuns;
  if (numRuns < 1) throw new RangeError("FC_NUM_RUNS must be at least 1");
  const timeLimitMs = readInteger("FC_TIME_LIMIT_MS") ?? defaults.timeLimitMs ?? 45_000;
  const path = env["FC_PATH"] === undefined || env["FC_PATH"] === "" ? undefined : env["FC_PATH"];
  const replay = [
    path === undefined ? "" : ` path=${path}`,
    commandsReplayPath() === undefined ? "" : ` replayPath=${commandsReplayPath()}`,
  ];
  console.log(`[fc] ${name} seed=${seed} numRuns=${numRuns}${replay.join("")}`);
  return {
    seed,
    numRuns,
    ...(path === undefined ? {} : { path }),
    includeErrorInReport: true,
    plugins: [fc.interruptAfterTimeLimit(timeLimitMs, { failOnInterrupt: true })],
  };
}

/**
 * `FC_REPLAY_PATH`, for `fc.commands({ replayPath })`: the `replayPath="…"` that fast-check
 * prints inside a command counterexample. Replaying a command sequence with `FC_SEED` and
 * `FC_PATH` alone fails with "Unable to replay, got wrong path", because which commands ran is
 * part of the path.
 *
 * @example FC_SEED=42 FC_PATH="62:0:7" FC_REPLAY_PATH="ECADAACCABAGAKCv:qqK" npx vitest run property-tests/jobs
 */
export function commandsReplayPath(): string | undefined {
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
