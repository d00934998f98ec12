/**
 * verq's benchmark: every figure of the job lifecycle, the relay and the file consumer, next to
 * raw better-sqlite3, verq's own statements replayed on its schema (the schema's limit),
 * plainjob, BullMQ and pg-boss measured in the same run; and verq on PostgreSQL next to
 * graphile-worker and pg-boss on the same server, with the settings they share printed under
 * the table and, for the workers, what each job cost in CPU and round trips. Scenarios run in
 * rounds, interleaved (each round in a rotated order) so that a noisy neighbour hurts every
 * system alike; the table shows the median, min and max of the rounds and, for each baseline,
 * verq's advantage as a ratio (above 1: verq is better).
 *
 *   pnpm bench            # the reported run: 10,000 jobs per throughput figure, 3 rounds
 *   pnpm bench --quick    # tiny sizes, to prove the harness works (well under two minutes)
 *   pnpm bench --only 2d  # only the groups whose name contains "2d"
 *   pnpm bench --only PostgreSQL  # only verq on PostgreSQL and its baselines
 *
 * The PostgreSQL groups (1c, 1d, 2f, 2g, 3b, 6c) start worker processes and migrate a schema per run,
 * which tiny sizes do not amortise: `--quick` leaves them out unless `--only` names them
 * (`--quick --only PostgreSQL --rounds 1` proves them on their own).
 *
 * Group 8 (CLI start) times the built bin: a full run builds the packages first when their
 * `dist` is older than their sources; `--quick` never builds and reports the built rows as not
 * measured unless `dist` is current (`pnpm bench --only "CLI start"` runs the group alone).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { PG_GROUPS, postgresServerSettings } from "./postgres-settings.ts";
import { isVerqSystem, type BenchSize, type Figure, type Scenario } from "./scenario.ts";
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
  // A few round trips per hundred jobs: two significant digits, not 0.00.
  if (value !== 0 && Math.abs(value) < 0.1) return value.toPrecision(2);
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

async function main(): Promise<void> {
  const postgresGroups: readonly string[] = Object.values(PG_GROUPS);
  const wanted = (group: string): boolean =>
    args.only === undefined ? !(quick && postgresGroups.includes(group)) : group.includes(args.only);
  const groupsOf = (s: Scenario): string[] => [s.group, ...(s.alsoIn ?? [])].filter(wanted);
  const scenarios = allScenarios().filter((s) => groupsOf(s).length > 0);
  const skipped = new Map<Scenario, string>();
  for (const scenario of scenarios) {
    const available = scenario.available === undefined ? true : await scenario.available(size(1));
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
      for (const group of groupsOf(scenario)) {
        rows.push({
          group,
          system: scenario.system,
          settings: scenario.settings,
          ...(scenario.postgres === undefined ? {} : { postgres: scenario.postgres }),
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
    // "direct to the core" is the floor the relay adds to, and `node -e ""` the floor of a CLI start, not competitors: no ratio.
    const isBaseline = !isVerqSystem(row.system) && !row.system.startsWith("direct") && !row.system.startsWith("node -e");
    const ratio =
      isBaseline && best !== undefined ? (row.better === "higher" ? best / row.median : row.median / best) : undefined;
    lines.push(
      `| ${row.group}: ${row.figure} | ${row.system} | ${format(row.median, row.unit)} | ${format(row.min, row.unit)} | ${format(row.max, row.unit)} | ${row.runs} | ${ratio === undefined ? "" : `${ratio.toFixed(2)}×`} |`,
    );
  }
  for (const [scenario, reason] of skipped)
    for (const group of groupsOf(scenario)) lines.push(`| ${group} | ${scenario.system} | not measured: ${reason} | | | 0 | |`);
  lines.push("");
  lines.push("What each row measured, with its durability settings:");
  const described = new Set<string>();
  for (const row of sorted) {
    const key = `${row.group} · ${row.system} · ${row.settings}`;
    if (described.has(key)) continue;
    described.add(key);
    lines.push(`- ${row.group.split(" ")[0]} ${row.system}: ${row.settings}`);
  }
  lines.push(...(await postgresSection(sorted)));
  lines.push("");
  lines.push("Targets (verq on SQLite unless the line says PostgreSQL, in this run):");
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

/**
 * What the PostgreSQL rows share and where they differ, under the table: the server's
 * durability as it ran (read with `show`, never changed by the bench), then per row the
 * processes, the jobs in flight in each and each process's pool. Empty without PostgreSQL rows.
 */
async function postgresSection(rows: readonly Row[]): Promise<string[]> {
  const used = new Map<string, Row>();
  for (const row of rows) if (row.postgres !== undefined) used.set(`${row.group} · ${row.system}`, row);
  if (used.size === 0) return [];
  const server = await postgresServerSettings();
  const lines = ["", "PostgreSQL settings of this run, one server for verq, graphile-worker and pg-boss:"];
  lines.push(
    typeof server === "string"
      ? `- server: not read (${server})`
      : `- server: PostgreSQL ${server.version}, synchronous_commit=${server.synchronousCommit} (\`show synchronous_commit\`; the server's own setting, not changed), fsync=${server.fsync}`,
  );
  lines.push("");
  lines.push("| group | system | processes | jobs in flight per process | pool per process |");
  lines.push("|---|---|---:|---:|---:|");
  for (const row of used.values()) {
    const use = row.postgres;
    if (use === undefined) continue;
    lines.push(`| ${row.group.split(" ")[0]} | ${row.system} | ${use.processes} | ${use.concurrency} | ${use.poolSize} |`);
  }
  return lines;
}

/** The best verq median among the rows of `row`'s group and figure. */
function bestVerq(rows: readonly Row[], row: Row): number | undefined {
  const candidates = rows
    .filter((r) => r.group === row.group && r.figure === row.figure && isVerqSystem(r.system))
    .map((r) => r.median);
  if (candidates.length === 0) return undefined;
  return row.better === "higher" ? Math.max(...candidates) : Math.min(...candidates);
}

function since(start: number): number {
  return performance.now() - start;
}

await main();
