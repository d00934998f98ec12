/**
 * `pnpm transitions [test files…]`: runs the suites that exercise the machines (the core's unit
 * tests and the property models, unless files are named) with transition recording on, compares
 * what they took with every transition of every machine, prints covered/total per machine and
 * each uncovered transition, and exits 1 when a transition has no test (or a test failed).
 * The property models run 20 times each unless `FC_NUM_RUNS` says otherwise.
 */
import { readdirSync } from "node:fs";
import { enumerateTransitions } from "./enumerate-transitions.ts";
import { runRecordedTests } from "./run-recorded-tests.ts";
import { formatCoverage, isComplete, transitionCoverage } from "./transition-coverage.ts";
import { ALL_MACHINES } from "./verq-machines.ts";

/** The property models (`*.model.spec.ts`). Not the mutant suites: they run variants, which record nothing, for minutes. */
function models(): string[] {
  return readdirSync(new URL("../../property-tests", import.meta.url), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".model.spec.ts"))
    .map((f) => `property-tests/${f}`)
    .sort();
}

const files = process.argv.slice(2);
const runs =
  files.length > 0
    ? [await runRecordedTests(files)]
    : [
        // The table property checks its own mutants too: it keeps its run counts.
        await runRecordedTests(["packages/core/test", "property-tests/machines/table.spec.ts"]),
        // Coverage needs the commands, not the full run counts: fewer runs keep this to a couple of minutes.
        await runRecordedTests(models(), { env: { FC_NUM_RUNS: process.env.FC_NUM_RUNS ?? "20" } }),
      ];
const run = { recorded: new Set(runs.flatMap((r) => [...r.recorded])), exitCode: Math.max(...runs.map((r) => r.exitCode)) };
const coverage = transitionCoverage(ALL_MACHINES.flatMap(enumerateTransitions), run.recorded);
console.log(`\nTransition coverage\n${formatCoverage(coverage)}`);
if (run.exitCode !== 0) console.error(`the tests failed (vitest exited ${run.exitCode})`);
process.exitCode = run.exitCode !== 0 || !isComplete(coverage) ? 1 : 0;
