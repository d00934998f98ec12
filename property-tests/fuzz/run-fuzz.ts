/**
 * `pnpm fuzz`: every property of the real code (the same `CheckedProperty` its test runs) on
 * each engine, from a fresh seed, for `--runs` runs (10 000 by default, or `FC_NUM_RUNS`) or
 * for a share of `--minutes`; then a table: property, engine, seed, runs, time, outcome. A
 * failure is shrunk, saved as a regression (which the tests replay first from then on), and
 * makes the exit code 1.
 *
 * pnpm fuzz --minutes 2 --engine both --property jobs
 */
import { engineAvailable } from "@verq/testing";
import type { CheckedProperty, PropertyEngine } from "../checked-property.ts";
import { UNBOUNDED_RUNS, type FreshSearch } from "../fc-config.ts";
import { PROPERTIES } from "../properties.ts";
import { REGRESSIONS_DIR } from "../regression.ts";
import { searchAndKeep } from "../search-and-keep.ts";
import { parseFuzzArgs, type FuzzArgs } from "./fuzz-args.ts";
import { formatFuzzTable, type FuzzRow } from "./fuzz-table.ts";

/** The (property, engine) pairs `args` selects, engines in the order asked. */
function pairsOf(args: FuzzArgs): [CheckedProperty, PropertyEngine][] {
  const wanted = PROPERTIES.filter(
    (p) => args.property === undefined || p.name.includes(args.property) || p.suite.includes(args.property),
  );
  if (wanted.length === 0)
    throw new Error(`no property matches ${JSON.stringify(args.property)}: ${PROPERTIES.map((p) => p.name).join(", ")}`);
  return wanted.flatMap((p) =>
    p.engines.filter((e) => e === null || args.engines.includes(e)).map((e): [CheckedProperty, PropertyEngine] => [p, e]),
  );
}

async function main(): Promise<number> {
  const args = parseFuzzArgs(process.argv.slice(2));
  const pairs = pairsOf(args);
  for (const engine of args.engines) {
    if (!(await engineAvailable(engine))) throw new Error(`${engine} is not available: leave it out with --engine`);
  }
  const boxMs = args.minutes === undefined ? undefined : Math.max(1, Math.floor((args.minutes * 60_000) / pairs.length));
  const root = args.regressions ?? REGRESSIONS_DIR;
  const rows: FuzzRow[] = [];
  for (const [property, engine] of pairs) {
    const seed = args.seed ?? Math.floor(Math.random() * 0x7fff_ffff);
    const fresh: FreshSearch = { seed, numRuns: args.numRuns ?? UNBOUNDED_RUNS, ...(boxMs === undefined ? {} : { boxMs }) };
    const started = performance.now();
    const { summary, failure } = await searchAndKeep(property, engine, { fresh }, root);
    const ms = performance.now() - started;
    if (failure !== null) console.error(failure.error.message);
    const outcome = failure === null ? "passed" : `FAILED${failure.file === null ? "" : `: ${failure.file}`}`;
    rows.push({ property: property.name, engine: engine ?? "-", seed: summary.seed, runs: summary.numRuns, ms, outcome });
  }
  console.log(`\n${formatFuzzTable(rows)}`);
  return rows.some((r) => r.outcome !== "passed") ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);
