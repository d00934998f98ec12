/**
 * `pnpm mutation:check [--update] [--report FILE] [--baseline FILE]`: the mutation-score ratchet.
 * Reads Stryker's JSON report and fails (exit 1) when a file's score or the total is below
 * `mutation/baseline.json`, naming each. With `--update` it writes the baseline from the report
 * when no score dropped, so the baseline only ever rises; lowering it is a hand edit, made on
 * purpose and explained in its commit. Exit 2: a file is missing or unreadable.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { MutationTestResult } from "mutation-testing-report-schema";
import { mutationScores, sortedByName, type MutationScores } from "./mutation-scores.ts";
import { ratchet, type ScoreDrop } from "./ratchet.ts";

const { values } = parseArgs({
  options: {
    update: { type: "boolean", default: false },
    report: { type: "string", default: "reports/mutation/mutation.json" },
    baseline: { type: "string", default: "mutation/baseline.json" },
  },
});
const update = values.update;

const report = readJson<MutationTestResult>(values.report, "run `pnpm mutation` first: it writes the report");
const current = mutationScores(report);
const baseline = readJson<MutationScores | undefined>(
  values.baseline,
  update ? undefined : "write one with `pnpm mutation:check --update`",
);

if (baseline === undefined) {
  writeBaseline(current);
  console.log(`mutation: baseline written to ${values.baseline} (total ${percent(current.total)})`);
  process.exit(0);
}

const { drops, raised } = ratchet(baseline, current);
// Files gone from the report (deleted or renamed) leave the baseline with an update.
const blocking = update ? drops.filter((d) => d.current !== undefined) : drops;
if (blocking.length > 0) {
  console.error("mutation: scores below the baseline in mutation/baseline.json:");
  for (const drop of blocking) console.error(`  ${describeDrop(drop)}`);
  console.error(
    "Kill the surviving mutants with tests (see reports/mutation/index.html), or list the truly equivalent ones in\n" +
      "mutation/equivalent.md and disable them with a `// Stryker disable next-line <mutator>: <reason>` comment.",
  );
  process.exit(1);
}

if (update) {
  writeBaseline(current);
  console.log(`mutation: baseline raised in ${values.baseline} (total ${percent(current.total)})`);
} else {
  console.log(`mutation: every score holds its baseline (total ${percent(current.total)}, baseline ${percent(baseline.total)})`);
  if (raised.length > 0) {
    for (const r of raised)
      console.log(`  rose: ${r.file ?? "total"} ${r.from === undefined ? "new" : percent(r.from)} -> ${percent(r.to)}`);
    console.log("Raise the baseline with `pnpm mutation:check --update` and commit mutation/baseline.json.");
  }
}

function describeDrop(drop: ScoreDrop): string {
  const name = drop.file ?? "total";
  if (drop.current === undefined) return `${name}: in the baseline (${percent(drop.baseline)}) but not in the report`;
  return `${name}: ${percent(drop.current)} < baseline ${percent(drop.baseline)}`;
}

function percent(score: number): string {
  return `${score.toFixed(2)} %`;
}

function writeBaseline(scores: MutationScores): void {
  writeFileSync(values.baseline, `${JSON.stringify({ total: scores.total, files: sortedByName(scores.files) }, null, 2)}\n`);
}

/** The parsed JSON of `path`; when it does not exist, undefined if `hint` is, else a message with the hint and exit 2. */
function readJson<T>(path: string, hint: string | undefined): T {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (hint === undefined && (error as NodeJS.ErrnoException).code === "ENOENT") return undefined as T;
    console.error(`mutation: cannot read ${path}: ${(error as Error).message}${hint === undefined ? "" : `; ${hint}`}`);
    process.exit(2);
  }
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    console.error(`mutation: ${path} is not JSON: ${(error as Error).message}`);
    process.exit(2);
  }
}
