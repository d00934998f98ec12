/** One line of the table `pnpm fuzz` prints: one search of one property on one engine. */
export interface FuzzRow {
  readonly property: string;
  /** `sqlite`, `postgres`, or `-` for a property without a store. */
  readonly engine: string;
  readonly seed: number;
  readonly runs: number;
  readonly ms: number;
  /** `passed`, or `FAILED` and the regression file it was saved as. */
  readonly outcome: string;
}

const HEADER = ["property", "engine", "seed", "runs", "time", "outcome"] as const;

/** `rows` as a Markdown table (it goes into docs/testing.md as printed), numbers right-aligned. */
export function formatFuzzTable(rows: readonly FuzzRow[]): string {
  const cells = rows.map((r) => [
    r.property,
    r.engine,
    String(r.seed),
    r.runs.toLocaleString("en"),
    `${(r.ms / 1000).toFixed(1)} s`,
    r.outcome,
  ]);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? "").length)));
  const right = new Set([2, 3, 4]);
  const line = (c: readonly string[]) =>
    `| ${c.map((v, i) => (right.has(i) ? v.padStart(widths[i] ?? 0) : v.padEnd(widths[i] ?? 0))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (right.has(i) ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`;
  return [line(HEADER), rule, ...cells.map(line)].join("\n");
}
