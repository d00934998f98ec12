import fc from "fast-check";

/** The seed CI uses when `FC_SEED` is not set (the same as property-tests/fc-config.ts), so CI runs are reproducible. */
const CI_SEED = 20_251_201;

const integerFromEnv = (name: string): number | undefined => {
  const text = process.env[name];
  return text === undefined || text.trim() === "" ? undefined : Number.parseInt(text, 10);
};

/**
 * `fc.assert` parameters for the bad-input corpora of this package, by the convention of
 * property-tests/fc-config.ts: `FC_SEED` (in CI the fixed seed when unset, else time-based),
 * `FC_NUM_RUNS`, `FC_TIME_LIMIT_MS` (a run that takes longer fails loudly). Prints
 * `[fc] <name> seed=<seed> numRuns=<n>` so that a failure can be replayed with `FC_SEED=<seed>`.
 */
export function fcParams<T>(name: string, numRuns: number, timeLimitMs: number): fc.Parameters<T> {
  const ci = process.env["CI"] === "true" || process.env["CI"] === "1";
  const seed = integerFromEnv("FC_SEED") ?? (ci ? CI_SEED : Date.now() % 0x7fff_ffff);
  const runs = integerFromEnv("FC_NUM_RUNS") ?? numRuns;
  const limit = integerFromEnv("FC_TIME_LIMIT_MS") ?? timeLimitMs;
  console.log(`[fc] ${name} seed=${seed} numRuns=${runs}`);
  return { seed, numRuns: runs, plugins: [fc.interruptAfterTimeLimit(limit, { failOnInterrupt: true })] };
}
