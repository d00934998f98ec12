/**
 * `pnpm transitions [test files…]`: runs the suites that exercise the machines (the core's unit
 * tests and the property tests, unless files are named) with transition recording on, compares
 * what they took with every transition of every machine, prints covered/total per machine and
 * each uncovered transition, and exits 1 when a transition has no test (or a test failed).
 */
import { enumerateTransitions } from "./enumerate-transitions.ts";
import { runRecordedTests } from "./run-recorded-tests.ts";
import { formatCoverage, isComplete, transitionCoverage } from "./transition-coverage.ts";
import { ALL_MACHINES } from "./verq-machines.ts";

const SUITES = ["packages/core/test", "property-tests"];

const files = process.argv.slice(2);
const run = await runRecordedTests(files.length > 0 ? files : SUITES);
const coverage = transitionCoverage(ALL_MACHINES.flatMap(enumerateTransitions), run.recorded);
console.log(`\nTransition coverage\n${formatCoverage(coverage)}`);
if (run.exitCode !== 0) console.error(`the tests failed (vitest exited ${run.exitCode})`);
process.exitCode = run.exitCode !== 0 || !isComplete(coverage) ? 1 : 0;
