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

/** A property that failed: fast-check's report as the message, and the run that failed, when there is one. */
export class PropertyFailed extends Error {
  /** Null when the property failed without a counterexample (interrupted by its time limit, too many skips). */
  readonly counterexample: Counterexample | null;

  constructor(report: string, counterexample: Counterexample | null) {
    super(report);
    this.name = "PropertyFailed";
    this.counterexample = counterexample;
  }
}

/** `/*replayPath="…"*\/`, which fast-check appends to a command sequence that shrinking replays. */
const REPLAY_PATH = /\/\*replayPath=("(?:[^"\\]|\\.)*")\*\//;

/**
 * `fc.assert` of an async property: resolves when it holds, else rejects with a
 * {@link PropertyFailed} whose message is the report `fc.assert` would throw (seed, path,
 * counterexample, `Got error: …`) and which carries the {@link Counterexample}, so that another
 * run (another engine) can replay it.
 */
export async function assertProperty<Ts extends [unknown, ...unknown[]]>(
  property: fc.IAsyncProperty<Ts>,
  parameters: fc.Parameters<Ts>,
): Promise<void> {
  const details = await fc.check(property, parameters);
  if (!details.failed) return;
  const report = (await fc.asyncDefaultReportMessage(details)) ?? "Property failed";
  if (details.counterexample === null || details.counterexamplePath === null) throw new PropertyFailed(report, null);
  const replayPath = details.counterexample
    .map((value) => REPLAY_PATH.exec(fc.stringify(value))?.[1])
    .find((p) => p !== undefined);
  throw new PropertyFailed(report, {
    seed: details.seed,
    path: details.counterexamplePath,
    replayPath: replayPath === undefined ? undefined : (JSON.parse(replayPath) as string),
  });
}
