import { describe, expect, it } from "vitest";
import { PG_GROUPS } from "../src/postgres-settings.ts";
import { SCHEMA_REPLAY } from "../src/scenarios/schema-replay.ts";
import { checkTargets, type Row } from "../src/targets.ts";

const row = (group: string, system: string, figure: string, median: number): Row => ({
  group,
  system,
  settings: "",
  figure,
  unit: figure.endsWith("/s") ? figure : "ms",
  better: figure.endsWith("/s") ? "higher" : "lower",
  median,
  min: median,
  max: median,
  runs: 1,
});

/** The one target line that starts with `prefix`. */
function line(rows: readonly Row[], prefix: string): string {
  const found = checkTargets(rows).filter((l) => l.startsWith(prefix));
  expect(found, `one target line starting with ${prefix}`).toHaveLength(1);
  return found[0] ?? "";
}

describe("checkTargets", () => {
  it("reports every target as not measured when the run has no rows, and none of the removed ones", () => {
    const lines = checkTargets([]);
    for (const l of lines) expect(l).toMatch(/: not measured in this run$/);
    const prefixes = ["2f PostgreSQL", "2g PostgreSQL", "1d PostgreSQL", "1c PostgreSQL", "6c PostgreSQL", "3b PostgreSQL"];
    for (const prefix of [
      ...prefixes,
      "2d processing",
      "2c processing",
      "2a lifecycle",
      "2b lifecycle",
      "4a relay",
      "4 relay",
      "6b claim",
    ])
      expect(
        lines.some((l) => l.startsWith(prefix)),
        prefix,
      ).toBe(true);
    expect(lines.join("\n")).not.toMatch(
      /raw|plainjob's enqueue|enqueue one at a time vs plainjob|enqueue in bulk vs plainjob|150 ms/,
    );
  });

  it("takes graphile-worker's localQueue 500 row for 2f and its best row for 2g, and needs 1× and 1.5×", () => {
    const rows = [
      row(PG_GROUPS.oneProcess, "verq on PostgreSQL (batchSize 100)", "jobs/s", 1_200),
      row(PG_GROUPS.oneProcess, "graphile-worker (localQueue 100)", "jobs/s", 1_500),
      row(PG_GROUPS.oneProcess, "graphile-worker (localQueue 500)", "jobs/s", 1_000),
      row(PG_GROUPS.processes, "verq on PostgreSQL (batchSize 100)", "jobs/s", 1_200),
      row(PG_GROUPS.processes, "graphile-worker (localQueue 9)", "jobs/s", 500),
      row(PG_GROUPS.processes, "graphile-worker (localQueue 500)", "jobs/s", 1_000),
    ];
    expect(line(rows, "2f PostgreSQL")).toMatch(/: 1\.20× \(1,200 vs 1,000\), needs 1× — met$/);
    expect(line(rows, "2g PostgreSQL")).toMatch(/: 1\.20× \(1,200 vs 1,000\), needs 1\.5× — MISSED$/);
  });

  it("compares PostgreSQL enqueues with graphile-worker in bulk and with pg-boss one at a time", () => {
    const rows = [
      row(PG_GROUPS.enqueueBulk, "verq on PostgreSQL", "jobs/s", 900),
      row(PG_GROUPS.enqueueBulk, "graphile-worker", "jobs/s", 1_000),
      row(PG_GROUPS.enqueueBulk, "pg-boss", "jobs/s", 100),
      row(PG_GROUPS.enqueueOne, "verq on PostgreSQL", "jobs/s", 700),
      row(PG_GROUPS.enqueueOne, "graphile-worker", "jobs/s", 5_000),
      row(PG_GROUPS.enqueueOne, "pg-boss", "jobs/s", 700),
    ];
    expect(line(rows, "1d PostgreSQL")).toMatch(/: 0\.90× .* — MISSED$/);
    expect(line(rows, "1c PostgreSQL")).toMatch(/: 1\.00× .* — met$/);
  });

  it("needs verq's latency p50 on PostgreSQL at or under graphile-worker's", () => {
    const at = (verq: number) => [
      row(PG_GROUPS.latency, "verq on PostgreSQL", "p50 ms", verq),
      row(PG_GROUPS.latency, "verq on PostgreSQL", "p99 ms", 1),
      row(PG_GROUPS.latency, "graphile-worker", "p50 ms", 4),
      row(PG_GROUPS.latency, "pg-boss", "p50 ms", 1_000),
    ];
    expect(line(at(2), "3b PostgreSQL")).toMatch(/: 0\.50× \(2\.00 ms vs 4\.00 ms\), needs ≤ 1× — met$/);
    expect(line(at(4), "3b PostgreSQL")).toMatch(/: 1\.00× .* — met$/);
    expect(line(at(5), "3b PostgreSQL")).toMatch(/: 1\.25× .* — MISSED$/);
  });

  it("holds the claim-and-finish round flat within ±20 % from the first table size to the last, beside the reference of the same rounds", () => {
    const at = (grown: readonly number[], reference: readonly number[]) =>
      ["10,000", "100,000", "1,000,000"].flatMap((jobs, i) => [
        row(PG_GROUPS.tableGrowth, "verq on PostgreSQL", `round p50 ms at ${jobs} jobs`, grown[i] ?? 0),
        row(
          PG_GROUPS.tableGrowth,
          "verq on PostgreSQL",
          `reference round p50 ms (10,000 jobs) beside ${jobs}`,
          reference[i] ?? 0,
        ),
      ]);
    expect(line(at([10, 12, 12], [10, 10, 10]), "6c PostgreSQL")).toMatch(
      /from 10,000 jobs to 1,000,000 jobs: 10\.0 → 12\.0 ms, the reference in the same rounds 10\.0 → 10\.0 ms: \+20 % — met$/,
    );
    expect(line(at([10, 12, 12.5], [10, 10, 10]), "6c PostgreSQL")).toMatch(/: \+25 % — MISSED$/);
    expect(line(at([10, 10, 7.5], [10, 10, 10]), "6c PostgreSQL")).toMatch(/: -25 % — MISSED$/);
    // The machine got slower for everyone between the sizes: the reference says so, and the round is flat.
    expect(line(at([10, 14, 20], [10, 14, 19]), "6c PostgreSQL")).toMatch(/: \+5 % — met$/);
    const withoutLastReference = at([10, 14, 20], [10, 14, 19]).filter(
      (r) => r.figure !== "reference round p50 ms (10,000 jobs) beside 1,000,000",
    );
    expect(line(withoutLastReference, "6c PostgreSQL")).toMatch(/not measured in this run/);
  });

  it("compares 2a and 2b with the replay of verq's statements, which is a baseline and never verq's own row", () => {
    const rows = [
      row("2a. lifecycle, each step its own commit", "verq", "jobs/s", 800),
      row("2a. lifecycle, each step its own commit", SCHEMA_REPLAY, "jobs/s", 1_000),
      row("2a. lifecycle, each step its own commit", "raw better-sqlite3", "jobs/s", 5_000),
      row("2b. lifecycle, 100 jobs per transaction", "verq", "jobs/s", 8_900),
      row("2b. lifecycle, 100 jobs per transaction", SCHEMA_REPLAY, "jobs/s", 10_000),
    ];
    expect(line(rows, "2a lifecycle")).toMatch(/: 0\.80× \(800 vs 1,000\), needs 0\.8× — met$/);
    expect(line(rows, "2b lifecycle")).toMatch(/: 0\.89× \(8,900 vs 10,000\), needs 0\.9× — MISSED$/);
  });

  it("compares SQLite at concurrency 8 with BullMQ and with graphile-worker's best on PostgreSQL, and one worker with plainjob", () => {
    const rows = [
      row("2d. processing, concurrency 8 in one process", "verq (batchSize 100)", "jobs/s", 30_000),
      row("2d. processing, concurrency 8 in one process", "BullMQ", "jobs/s", 10_000),
      row(PG_GROUPS.oneProcess, "graphile-worker (localQueue 100)", "jobs/s", 12_000),
      row(PG_GROUPS.oneProcess, "graphile-worker (localQueue 500)", "jobs/s", 16_000),
      row("2c. processing, one worker", "verq (batchSize 100)", "jobs/s", 19_000),
      row("2c. processing, one worker", "plainjob", "jobs/s", 5_000),
    ];
    expect(line(rows, "2d processing at concurrency 8 vs BullMQ")).toMatch(/: 3\.00× .* — met$/);
    expect(line(rows, "2d processing at concurrency 8 (SQLite) vs graphile-worker")).toMatch(
      /: 1\.88× \(30,000 vs 16,000\), needs 2× — MISSED$/,
    );
    expect(line(rows, "2c processing")).toMatch(/: 3\.80× .* — MISSED$/);
  });
});
