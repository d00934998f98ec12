import { calculateMetrics } from "mutation-testing-metrics";
import type { MutationTestResult } from "mutation-testing-report-schema";

/** Mutation scores of one run, in percent: one per mutated file (by its report path) and the total. */
export interface MutationScores {
  readonly total: number;
  readonly files: Readonly<Record<string, number>>;
}

/**
 * The scores of a Stryker JSON report (mutation-testing-report-schema), computed by Stryker's own
 * metrics library so that they equal what its reporters print: `mutationScore` =
 * (killed + timeout) / (killed + timeout + survived + no coverage) × 100. Ignored mutants and
 * those that failed to compile or run are outside the score. A file with no valid mutant (types
 * only, or every mutant ignored) has no score and is left out. Scores are rounded to two
 * decimals, the precision the baseline keeps.
 */
export function mutationScores(report: MutationTestResult): MutationScores {
  const files: Record<string, number> = {};
  for (const [name, file] of Object.entries(report.files)) {
    const { metrics } = calculateMetrics({ [name]: file });
    if (metrics.totalValid > 0) files[name] = round(metrics.mutationScore);
  }
  const { metrics } = calculateMetrics(report.files);
  return { total: metrics.totalValid > 0 ? round(metrics.mutationScore) : 0, files: sortedByName(files) };
}

/** A copy of `record` with its keys in name order, so that a written baseline diffs line by line. */
export function sortedByName<T>(record: Readonly<Record<string, T>>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function round(score: number): number {
  return Math.round(score * 100) / 100;
}
