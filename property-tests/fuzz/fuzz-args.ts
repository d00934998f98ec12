import { parseArgs } from "node:util";
import type { Engine } from "@verq/testing";
import { readInteger } from "../fc-config.ts";

/** Runs per property and engine when neither `--runs`, `--minutes` nor `FC_NUM_RUNS` says. */
export const FUZZ_RUNS = 10_000;

/** What `pnpm fuzz` was asked to do. */
export interface FuzzArgs {
  /** Runs of each property on each engine; with `minutes`, at most this many. */
  readonly numRuns: number | undefined;
  /** The whole budget, split evenly over the (property, engine) pairs; none: `numRuns` ends each. */
  readonly minutes: number | undefined;
  readonly engines: readonly Engine[];
  /** Only the properties whose name or suite folder contains it. */
  readonly property: string | undefined;
  /** One seed for every search; a random one per search when omitted. */
  readonly seed: number | undefined;
  /** Where failures are saved as regressions; `property-tests/regressions/` when omitted. */
  readonly regressions: string | undefined;
}

const USAGE = `usage: pnpm fuzz [--minutes N | --runs N] [--engine sqlite|postgres|both] [--property NAME] [--seed N] [--regressions DIR]`;

/** Parses the command line of `pnpm fuzz`; throws a usage error on bad input. */
export function parseFuzzArgs(argv: readonly string[]): FuzzArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      minutes: { type: "string" },
      runs: { type: "string" },
      engine: { type: "string", default: "both" },
      property: { type: "string" },
      seed: { type: "string" },
      regressions: { type: "string" },
    },
    strict: true,
    allowPositionals: false,
  });
  const number = (name: string, text: string | undefined, integer: boolean): number | undefined => {
    if (text === undefined) return undefined;
    const value = Number(text);
    const valid = integer ? Number.isSafeInteger(value) && value >= 0 : Number.isFinite(value) && value > 0;
    if (!valid || text.trim() === "")
      throw new Error(`--${name} must be a ${integer ? "whole" : "positive"} number, got ${JSON.stringify(text)}\n${USAGE}`);
    return value;
  };
  const minutes = number("minutes", values.minutes, false);
  const runs = number("runs", values.runs, true);
  if (runs === 0) throw new Error(`--runs must be at least 1\n${USAGE}`);
  const engines = { sqlite: ["sqlite"], postgres: ["postgres"], both: ["sqlite", "postgres"] } as const;
  const engine = values.engine as keyof typeof engines;
  if (!(engine in engines))
    throw new Error(`--engine must be sqlite, postgres or both, got ${JSON.stringify(values.engine)}\n${USAGE}`);
  return {
    numRuns: runs ?? (minutes === undefined ? (readInteger("FC_NUM_RUNS") ?? FUZZ_RUNS) : undefined),
    minutes,
    engines: engines[engine],
    property: values.property,
    seed: number("seed", values.seed, true),
    regressions: values.regressions,
  };
}
