import fc from "fast-check";

/**
 * What replays one failing run exactly: fast-check's seed and counterexample path, and for a
 * model-based property the commands' replay path (which commands ran is part of the path).
 */
export interface Counterexample {
  readonly seed: number;
  readonly path: string;
  readonly replayPath: string | undefined;
}

/** What a property's search did: its seed, the runs it made and whether a time box ended it. */
export interface RunSummary {
  readonly seed: number;
  /** Runs that passed, plus the failing one when the property failed. */
  readonly numRuns: number;
  /** True when a time limit, not the run count, ended the search. */
  readonly interrupted: boolean;
}

/** A property that failed: fast-check's report as the message, and the run that failed, when there is one. */
export class PropertyFailed extends Error {
  /** Null when the property failed without a counterexample (interrupted by its time limit, too many skips). */
  readonly counterexample: Counterexample | null;
  /** The search that failed: its seed and the runs it made up to the failure. */
  readonly summary: RunSummary;

  constructor(report: string, counterexample: Counterexample | null, summary: RunSummary) {
    super(report);
    this.name = "PropertyFailed";
    this.counterexample = counterexample;
    this.summary = summary;
  }
}

/** `/*replayPath="…"*\/`, which fast-check appends to a command sequence that shrinking replays. */
const REPLAY_PATH = /\/\*replayPath=("(?:[^"\\]|\\.)*")\*\//;

/**
 * `fc.assert` of a property (sync or async): resolves with a {@link RunSummary} when it holds,
 * else rejects with a {@link PropertyFailed} whose message is the report `fc.assert` would throw
 * (seed, path, counterexample, `Got error: …`) and which carries the {@link Counterexample}, so
 * that another run (another engine, a regression file) can replay it.
 */
export async function assertProperty<Ts extends [unknown, ...unknown[]]>(
  property: fc.IRawProperty<Ts>,
  parameters: fc.Parameters<Ts>,
): Promise<RunSummary> {
  const details = await fc.check(property, parameters);
  const summary: RunSummary = { seed: details.seed, numRuns: details.numRuns, interrupted: details.interrupted };
  if (!details.failed) return summary;
  const report = (await fc.asyncDefaultReportMessage(details)) ?? "Property failed";
  if (details.counterexample === null || details.counterexamplePath === null) throw new PropertyFailed(report, null, summary);
  const replayPath = details.counterexample
    .map((value) => REPLAY_PATH.exec(fc.stringify(value))?.[1])
    .find((p) => p !== undefined);
  const counterexample: Counterexample = {
    seed: details.seed,
    path: details.counterexamplePath,
    replayPath: replayPath === undefined ? undefined : (JSON.parse(replayPath) as string),
  };
  throw new PropertyFailed(report, counterexample, summary);
}
