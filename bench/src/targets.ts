/** The speed targets, checked against one run's rows (met or missed, with the figures). */
import { CONCURRENCY, PROCESSES } from "./postgres-settings.ts";
import type { PostgresUse } from "./scenario.ts";

/** One figure of one scenario over all rounds. */
export interface Row {
  readonly group: string;
  readonly system: string;
  readonly settings: string;
  /** How a PostgreSQL row used the server. */
  readonly postgres?: PostgresUse;
  readonly figure: string;
  readonly unit: string;
  readonly better: "higher" | "lower";
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly runs: number;
}

const find = (rows: readonly Row[], group: string, system: (s: string) => boolean, figure: (f: string) => boolean): Row[] =>
  rows.filter((r) => r.group.startsWith(group) && system(r.system) && figure(r.figure));

const isVerq = (s: string): boolean => s.startsWith("verq");
const best = (rows: readonly Row[]): number | undefined =>
  rows.length === 0 ? undefined : Math.max(...rows.map((r) => r.median));

function ratioTarget(label: string, verq: number | undefined, baseline: number | undefined, needed: number): string {
  if (verq === undefined || baseline === undefined) return `${label}: not measured in this run`;
  const ratio = verq / baseline;
  return `${label}: ${ratio.toFixed(2)}× (${Math.round(verq).toLocaleString("en")} vs ${Math.round(baseline).toLocaleString("en")}), needs ${needed}× — ${ratio >= needed ? "met" : "MISSED"}`;
}

export function checkTargets(rows: readonly Row[]): string[] {
  const rate = (f: string): boolean => f.endsWith("/s");
  const processing = best(find(rows, "2d", isVerq, rate));
  const out = [
    ratioTarget("processing vs BullMQ at concurrency 8", processing, best(find(rows, "2d", (s) => s === "BullMQ", rate)), 3),
    ratioTarget(
      "processing, one worker, vs plainjob's one worker",
      best(find(rows, "2c", isVerq, rate)),
      best(find(rows, "2c", (s) => s === "plainjob", rate)),
      4,
    ),
    ratioTarget(
      "processing at concurrency 8 (SQLite) vs graphile-worker at its documented batch settings (PostgreSQL, 2f)",
      processing,
      best(find(rows, "2f", (s) => s.startsWith("graphile-worker"), rate)),
      2,
    ),
    ratioTarget(
      "100 jobs per transaction vs raw batched lifecycle",
      best(find(rows, "2b", isVerq, rate)),
      best(find(rows, "2b", (s) => s === "raw better-sqlite3", rate)),
      0.4,
    ),
    ratioTarget(
      "one job per transaction vs raw per-commit lifecycle",
      best(find(rows, "2a", isVerq, rate)),
      best(find(rows, "2a", (s) => s === "raw better-sqlite3", rate)),
      0.5,
    ),
    ratioTarget(
      "enqueue one at a time vs plainjob",
      best(find(rows, "1a", isVerq, rate)),
      best(find(rows, "1a", (s) => s === "plainjob", rate)),
      1,
    ),
    ratioTarget(
      "enqueue in bulk vs plainjob",
      best(find(rows, "1b", isVerq, rate)),
      best(find(rows, "1b", (s) => s === "plainjob", rate)),
      1,
    ),
  ];
  for (const [group, how] of [
    ["2f", `concurrency ${CONCURRENCY} in one process`],
    ["2g", `${PROCESSES} processes on one database`],
  ] as const) {
    out.push(
      ratioTarget(
        `verq on PostgreSQL ahead of graphile-worker at its best documented settings, ${how}`,
        best(find(rows, group, isVerq, rate)),
        best(find(rows, group, (s) => s.startsWith("graphile-worker"), rate)),
        1,
      ),
    );
  }
  const direct = best(find(rows, "4a", (s) => s === "direct to the core", rate));
  out.push(
    ratioTarget(
      "relay, new GUIDs at 16 in flight, vs direct to the core",
      best(find(rows, "4a", (s) => s === "verq (new GUIDs)", rate)),
      direct,
      0.5,
    ),
    ratioTarget(
      "relay, replays at 16 in flight, vs direct to the core",
      best(find(rows, "4a", (s) => s === "verq (replays)", rate)),
      direct,
      0.8,
    ),
  );
  const added = find(rows, "4", isVerq, (f) => f === "added p50 ms")[0];
  out.push(
    added === undefined
      ? "relay added latency p50 under 1 ms: not measured in this run"
      : `relay added latency p50 under 1 ms: ${added.median.toFixed(2)} ms — ${added.median < 1 ? "met" : "MISSED"}`,
  );
  const stats = find(
    rows,
    "8b",
    (s) => s === "verq (built bin)",
    (f) => f === "start to exit ms",
  )[0];
  out.push(
    stats === undefined
      ? "`verq jobs stats` start, built bin, under 150 ms: not measured in this run"
      : `\`verq jobs stats\` start, built bin, under 150 ms: ${Math.round(stats.median)} ms — ${stats.median < 150 ? "met" : "MISSED"}`,
  );
  const claims = find(rows, "6b", isVerq, (f) => f.startsWith("claim p50"));
  const firstClaim = claims[0];
  const lastClaim = claims[claims.length - 1];
  if (firstClaim === undefined || lastClaim === undefined || claims.length < 2) {
    out.push("claim latency flat (±20 %) as the log grows: not measured in this run");
  } else {
    const change = lastClaim.median / firstClaim.median - 1;
    out.push(
      `claim latency flat (±20 %) from ${firstClaim.figure.replace("claim p50 ms at ", "")} to ${lastClaim.figure.replace("claim p50 ms at ", "")}: ${firstClaim.median.toFixed(3)} → ${lastClaim.median.toFixed(3)} ms (${(change * 100).toFixed(0)} %) — ${Math.abs(change) <= 0.2 ? "met" : "MISSED"}`,
    );
  }
  return out;
}
