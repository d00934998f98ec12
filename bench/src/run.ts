/**
 * verq's benchmark: every figure of the job lifecycle, the relay and the file consumer, next to
 * raw better-sqlite3, plainjob, BullMQ and pg-boss measured in the same run. Scenarios run in
 * rounds, interleaved (each round in a rotated order) so that a noisy neighbour hurts every
 * system alike; the table shows the median, min and max of the rounds and, for each baseline,
 * verq's advantage as a ratio (above 1: verq is better).
 *
 *   pnpm bench            # the reported run: 10,000 jobs per throughput figure, 3 rounds
 *   pnpm bench --quick    # tiny sizes, to prove the harness works (well under two minutes)
 *   pnpm bench --only 2d  # only the groups whose name contains "2d"
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { type BenchSize, type Figure, type Scenario } from "./scenario.ts";
import { allScenarios } from "./scenarios/index.ts";
import { checkTargets, type Row } from "./targets.ts";

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    rounds: { type: "string" },
    out: { type: "string" },
  },
});
const quick = args.quick === true;
const rounds = Number(args.rounds ?? 3);
if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error("--rounds must be a whole number of at least 1");

const root = fs.mkdtempSync(path.join(os.tmpdir(), "verq-bench-"));
const size = (round: number): BenchSize => ({
  quick,
  jobs: quick ? 300 : 10_000,
  requests: quick ? 200 : 5_000,
  files: quick ? 60 : 2_000,
  dir: path.join(root, `round-${round}`),
});

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? Number.NaN) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

function format(value: number, unit: string): string {
  if (!Number.isFinite(value)) return "–";
  if (unit.includes("/s")) return Math.round(value).toLocaleString("en");
  if (unit === "bytes/job") return Math.round(value).toLocaleString("en");
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

async function main(): Promise<void> {
  const scenarios = allScenarios().filter((s) => args.only === undefined || s.group.includes(args.only));
  const skipped = new Map<Scenario, string>();
  for (const scenario of scenarios) {
    const available = scenario.available === undefined ? true : await scenario.available();
    if (available !== true) skipped.set(scenario, available);
  }
  const runs = new Map<Scenario, Record<string, Figure>[]>();
  const failures: string[] = [];
  const started = performance.now();
  for (let round = 1; round <= rounds; round++) {
    fs.mkdirSync(size(round).dir, { recursive: true });
    const order = scenarios.filter((s) => !skipped.has(s));
    const rotated = [
      ...order.slice((round - 1) % Math.max(1, order.length)),
      ...order.slice(0, (round - 1) % Math.max(1, order.length)),
    ];
    for (const scenario of rotated) {
      if (scenario.rounds !== undefined && round > (quick ? rounds : scenario.rounds)) continue;
      process.stderr.write(`[bench] round ${round}/${rounds} ${scenario.group} · ${scenario.system}\n`);
      try {
        const figures = await scenario.run(size(round));
        runs.set(scenario, [...(runs.get(scenario) ?? []), figures]);
      } catch (error) {
        failures.push(`${scenario.group} · ${scenario.system}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    fs.rmSync(path.join(root, `round-${round}`), { recursive: true, force: true });
  }
  fs.rmSync(root, { recursive: true, force: true });

  const rows: Row[] = [];
  for (const scenario of scenarios) {
    const list = runs.get(scenario) ?? [];
    const names = [...new Set(list.flatMap((figures) => Object.keys(figures)))];
    for (const name of names) {
      const values = list.map((f) => f[name]?.value).filter((v): v is number => v !== undefined);
      const first = list.find((f) => f[name] !== undefined)?.[name];
      if (first === undefined) continue;
      rows.push({
        group: scenario.group,
        system: scenario.system,
        settings: scenario.settings,
        figure: name,
        unit: first.unit,
        better: first.better,
        median: median(values),
        min: Math.min(...values),
        max: Math.max(...values),
        runs: values.length,
      });
    }
  }

  const lines: string[] = [];
  lines.push(
    `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? "unknown CPU"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}; ${new Date().toISOString().slice(0, 10)}; ${quick ? "--quick (tiny sizes: not for reporting)" : `${rounds} rounds`}; ${(since(started) / 1000).toFixed(0)} s`,
  );
  lines.push("");
  lines.push("| figure | system | median | min | max | runs | verq advantage |");
  lines.push("|---|---|---:|---:|---:|---:|---:|");
  const sorted = [...rows].sort((a, b) => a.group.localeCompare(b.group, "en", { numeric: true }));
  for (const row of sorted) {
    const best = bestVerq(rows, row);
    // "direct to the core" is the floor the relay adds to, not a competitor: no ratio.
    const isBaseline = !row.system.startsWith("verq") && !row.system.startsWith("direct");
    const ratio =
      isBaseline && best !== undefined ? (row.better === "higher" ? best / row.median : row.median / best) : undefined;
    lines.push(
      `| ${row.group}: ${row.figure} | ${row.system} | ${format(row.median, row.unit)} | ${format(row.min, row.unit)} | ${format(row.max, row.unit)} | ${row.runs} | ${ratio === undefined ? "" : `${ratio.toFixed(2)}×`} |`,
    );
  }
  for (const [scenario, reason] of skipped)
    lines.push(`| ${scenario.group} | ${scenario.system} | not measured: ${reason} | | | 0 | |`);
  lines.push("");
  lines.push("What each row measured, with its durability settings:");
  const described = new Set<string>();
  for (const row of sorted) {
    const key = `${row.group} · ${row.system} · ${row.settings}`;
    if (described.has(key)) continue;
    described.add(key);
    lines.push(`- ${row.group.split(" ")[0]} ${row.system}: ${row.settings}`);
  }
  lines.push("");
  lines.push("Targets (verq on SQLite, in this run):");
  for (const target of checkTargets(rows)) lines.push(`- ${target}`);
  if (failures.length > 0) {
    lines.push("");
    lines.push("Failed scenarios:");
    for (const failure of failures) lines.push(`- ${failure}`);
  }
  const text = `${lines.join("\n")}\n`;
  process.stdout.write(text);
  if (args.out !== undefined) fs.writeFileSync(args.out, text);
  if (failures.length > 0) process.exitCode = 1;
}

/** The best verq median among the rows of `row`'s group and figure. */
function bestVerq(rows: readonly Row[], row: Row): number | undefined {
  const candidates = rows
    .filter((r) => r.group === row.group && r.figure === row.figure && r.system.startsWith("verq"))
    .map((r) => r.median);
  if (candidates.length === 0) return undefined;
  return row.better === "higher" ? Math.max(...candidates) : Math.min(...candidates);
}

function since(start: number): number {
  return performance.now() - start;
}

await main();
