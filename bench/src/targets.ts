/**
 * The benchmark's targets, checked against one run's rows: each a ratio of verq to a baseline
 * measured in the same run (or of verq to itself as something grows), met or missed, with the
 * figures. Rows without a target (the raw-table lifecycles, plainjob's enqueues, the CLI start,
 * the PostgreSQL cost figures) stay in the table as information.
 */
import { CONCURRENCY, PG_GROUPS, PROCESSES } from "./postgres-settings.ts";
import { isVerqSystem, type PostgresUse } from "./scenario.ts";
import { SCHEMA_REPLAY } from "./scenarios/schema-replay.ts";

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

/** The rows of the group whose name starts with `group` (its number, "2f"), of matching system and figure. */
const find = (rows: readonly Row[], group: string, system: (s: string) => boolean, figure: (f: string) => boolean): Row[] =>
  rows.filter((r) => r.group.startsWith(group) && system(r.system) && figure(r.figure));

const rate = (f: string): boolean => f.endsWith("/s");
const is =
  (name: string) =>
  (s: string): boolean =>
    s === name;
const graphile = (s: string): boolean => s.startsWith("graphile-worker");
/** The best median of `rows` (the highest rate, or the lowest latency). */
const best = (rows: readonly Row[], better: "higher" | "lower" = "higher"): number | undefined =>
  rows.length === 0
    ? undefined
    : better === "higher"
      ? Math.max(...rows.map((r) => r.median))
      : Math.min(...rows.map((r) => r.median));
const number = (x: number): string => (x >= 100 ? Math.round(x).toLocaleString("en") : x.toFixed(2));
const groupNumber = (name: string): string => name.split(".")[0] ?? name;

/** verq's rate over the baseline's, which must reach `needed`. */
function ratioTarget(label: string, verq: number | undefined, baseline: number | undefined, needed: number): string {
  if (verq === undefined || baseline === undefined) return `${label}: not measured in this run`;
  const ratio = verq / baseline;
  return `${label}: ${ratio.toFixed(2)}× (${number(verq)} vs ${number(baseline)}), needs ${needed}× — ${ratio >= needed ? "met" : "MISSED"}`;
}

/** verq's latency over the baseline's, which must stay at or under `atMost`. */
function latencyTarget(label: string, verq: number | undefined, baseline: number | undefined, atMost: number): string {
  if (verq === undefined || baseline === undefined) return `${label}: not measured in this run`;
  const ratio = verq / baseline;
  return `${label}: ${ratio.toFixed(2)}× (${verq.toFixed(2)} ms vs ${baseline.toFixed(2)} ms), needs ≤ ${atMost}× — ${ratio <= atMost ? "met" : "MISSED"}`;
}

/** The last of `steps` (one figure per size, in order) within ±20 % of the first. */
function flatTarget(label: string, steps: readonly Row[], prefix: string): string {
  const first = steps[0];
  const last = steps[steps.length - 1];
  if (first === undefined || last === undefined || steps.length < 2) return `${label}: not measured in this run`;
  const change = last.median / first.median - 1;
  const at = (row: Row): string => row.figure.replace(prefix, "");
  return `${label} from ${at(first)} to ${at(last)}: ${first.median.toFixed(3)} → ${last.median.toFixed(3)} ms (${(change * 100).toFixed(0).replace(/^-0$/, "0")} %) — ${Math.abs(change) <= 0.2 ? "met" : "MISSED"}`;
}

/**
 * The growing store's round (6c) flat within ±20 % from the first size to the last, each size
 * taken relative to the reference store measured in the same rounds (`verq-postgres-growth.ts`):
 * the change is (last / its reference) over (first / its reference).
 */
function flatBesideReference(label: string, grown: readonly Row[], references: readonly Row[]): string {
  const [first, firstRef] = [grown[0], references[0]];
  const [last, lastRef] = [grown[grown.length - 1], references[references.length - 1]];
  if (first === undefined || last === undefined || firstRef === undefined || lastRef === undefined || grown.length < 2)
    return `${label}: not measured in this run`;
  if (references.length !== grown.length) return `${label}: not measured in this run (a reference row is missing)`;
  const change = last.median / lastRef.median / (first.median / firstRef.median) - 1;
  const at = (row: Row): string => row.figure.replace("round p50 ms at ", "");
  return `${label} from ${at(first)} to ${at(last)}: ${first.median.toFixed(1)} → ${last.median.toFixed(1)} ms, the reference in the same rounds ${firstRef.median.toFixed(1)} → ${lastRef.median.toFixed(1)} ms: ${change >= 0 ? "+" : ""}${(change * 100).toFixed(0)} % — ${Math.abs(change) <= 0.2 ? "met" : "MISSED"}`;
}

export function checkTargets(rows: readonly Row[]): string[] {
  const verqRate = (group: string): number | undefined => best(find(rows, group, isVerqSystem, rate));
  const baselineRate = (group: string, system: (s: string) => boolean): number | undefined =>
    best(find(rows, group, system, rate));
  const [oneProcess, processes, enqueueOne, enqueueBulk, latency, growth] = [
    PG_GROUPS.oneProcess,
    PG_GROUPS.processes,
    PG_GROUPS.enqueueOne,
    PG_GROUPS.enqueueBulk,
    PG_GROUPS.latency,
    PG_GROUPS.tableGrowth,
  ].map(groupNumber) as [string, string, string, string, string, string];
  const p50 = (f: string): boolean => f === "p50 ms";
  return [
    ratioTarget(
      `${oneProcess} PostgreSQL, concurrency ${CONCURRENCY} in one process, vs graphile-worker (localQueue 500)`,
      verqRate(oneProcess),
      baselineRate(oneProcess, is("graphile-worker (localQueue 500)")),
      1,
    ),
    ratioTarget(
      `${processes} PostgreSQL, ${PROCESSES} processes on one database, vs graphile-worker at its best documented settings`,
      verqRate(processes),
      baselineRate(processes, graphile),
      1.5,
    ),
    ratioTarget(
      `${enqueueBulk} PostgreSQL enqueue in bulk vs graphile-worker`,
      verqRate(enqueueBulk),
      baselineRate(enqueueBulk, graphile),
      1,
    ),
    ratioTarget(
      `${enqueueOne} PostgreSQL enqueue one at a time vs pg-boss`,
      verqRate(enqueueOne),
      baselineRate(enqueueOne, is("pg-boss")),
      1,
    ),
    flatBesideReference(
      `${growth} PostgreSQL claim-and-finish round flat (±20 %) as the jobs table grows`,
      find(rows, growth, isVerqSystem, (f) => f.startsWith("round p50 ms at ")),
      find(rows, growth, isVerqSystem, (f) => f.startsWith("reference round p50 ms")),
    ),
    latencyTarget(
      `${latency} PostgreSQL enqueue→start latency p50 vs graphile-worker (verq no slower)`,
      best(find(rows, latency, isVerqSystem, p50), "lower"),
      best(find(rows, latency, graphile, p50), "lower"),
      1,
    ),
    ratioTarget("2d processing at concurrency 8 vs BullMQ", verqRate("2d"), baselineRate("2d", is("BullMQ")), 3),
    ratioTarget(
      `2d processing at concurrency 8 (SQLite) vs graphile-worker at its documented batch settings (PostgreSQL, ${oneProcess})`,
      verqRate("2d"),
      baselineRate(oneProcess, graphile),
      2,
    ),
    ratioTarget("2c processing, one worker, vs plainjob's one worker", verqRate("2c"), baselineRate("2c", is("plainjob")), 4),
    ratioTarget(
      "2a lifecycle, each step its own commit, vs verq's statements replayed on its schema",
      verqRate("2a"),
      baselineRate("2a", is(SCHEMA_REPLAY)),
      0.8,
    ),
    ratioTarget(
      "2b lifecycle, 100 jobs per transaction, vs verq's statements replayed on its schema",
      verqRate("2b"),
      baselineRate("2b", is(SCHEMA_REPLAY)),
      0.9,
    ),
    ...relayTargets(rows),
    flatTarget(
      "6b claim latency flat (±20 %) as the log grows",
      find(rows, "6b", isVerqSystem, (f) => f.startsWith("claim p50 ms at ")),
      "claim p50 ms at ",
    ),
  ];
}

function relayTargets(rows: readonly Row[]): string[] {
  const direct = best(find(rows, "4a", is("direct to the core"), rate));
  const added = find(rows, "4", isVerqSystem, (f) => f === "added p50 ms")[0];
  return [
    ratioTarget(
      "4a relay, new GUIDs at 16 in flight, vs direct to the core",
      best(find(rows, "4a", is("verq (new GUIDs)"), rate)),
      direct,
      0.5,
    ),
    ratioTarget(
      "4a relay, replays at 16 in flight, vs direct to the core",
      best(find(rows, "4a", is("verq (replays)"), rate)),
      direct,
      0.8,
    ),
    added === undefined
      ? "4 relay added latency p50 under 1 ms: not measured in this run"
      : `4 relay added latency p50 under 1 ms: ${added.median.toFixed(2)} ms — ${added.median < 1 ? "met" : "MISSED"}`,
  ];
}
