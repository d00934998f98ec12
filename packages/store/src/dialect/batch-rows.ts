import type { BatchValue } from "./statements.ts";

/**
 * The runs of `rows` one statement each takes, at most `perStatement` rows (at least one) in
 * row order, each run as its first and last row (the last one excluded). Checks that every row
 * has `columns` values: a batch row that lacks one would bind its neighbour's.
 */
export function* batchRuns(
  rows: readonly (readonly BatchValue[])[],
  columns: number,
  perStatement: number,
): Generator<{ readonly start: number; readonly end: number }> {
  const step = Math.max(1, perStatement);
  for (let start = 0; start < rows.length; start += step) {
    const end = Math.min(rows.length, start + step);
    for (let i = start; i < end; i++) {
      const length = rows[i]?.length ?? 0;
      if (length !== columns) throw new Error(`a batch row has ${length} values; expected ${columns}`);
    }
    yield { start, end };
  }
}
