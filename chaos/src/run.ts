/**
 * `pnpm chaos [--quick] [--systems verq,pg-boss] [--scenarios kill,freeze] [--jobs N]`: runs
 * every scenario against every system with real worker processes and prints one table, each
 * cell `lost / completed twice / late completions accepted / recovery s` (docs/chaos.md).
 * `--quick` runs a small workload through the worker scenarios; the full run, ~2,000 jobs
 * through all six. Exits 0 once the table is printed, whatever it shows; 1 when it could not be
 * produced.
 */
import { parseArgs } from "node:util";
import {
  TEST_POSTGRES_URL,
  engineAvailable,
  haClusterAvailable,
  privatePostgresAvailable,
  startHaCluster,
  startPrivatePostgres,
} from "@verq/testing";
import { runCell, WORKERS, type Cell, type CellOptions, type Server } from "./run-cell.ts";
import { SCENARIOS, type Scenario } from "./scenarios.ts";
import type { ChaosSystem } from "./system.ts";
import { bullmq } from "./systems/bullmq.ts";
import { graphileWorker } from "./systems/graphile-worker.ts";
import { pgBoss } from "./systems/pg-boss.ts";
import { verq } from "./systems/verq.ts";
import { formatTable, type Outcome } from "./table.ts";

const SYSTEMS: readonly ChaosSystem[] = [verq, graphileWorker, pgBoss, bullmq];
const QUICK_SCENARIOS = ["kill", "freeze"];

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    systems: { type: "string" },
    scenarios: { type: "string" },
    jobs: { type: "string" },
  },
});
const quick = values.quick;
const systems = pick(SYSTEMS, values.systems, (s) => s.name);
const scenarios = pick(SCENARIOS, values.scenarios ?? (quick ? QUICK_SCENARIOS.join(",") : undefined), (s) => s.key);
const options: CellOptions = {
  jobs: Number(values.jobs ?? (quick ? 600 : 2_000)),
  quick,
  handlerMs: 40,
  settleMs: quick ? 15_000 : 30_000,
};

const started = Date.now();
const outcomes = new Map<string, Outcome>();
const log = (line: string): void => void process.stderr.write(`[chaos ${((Date.now() - started) / 1000).toFixed(0)}s] ${line}\n`);
for (const scenario of scenarios) {
  const applicable = systems.filter((system) => scenario.notFor(system) === null);
  for (const system of systems) {
    const why = scenario.notFor(system);
    if (why !== null) outcomes.set(key(scenario, system), { kind: "n/a", why });
  }
  if (applicable.length === 0) continue;
  const server = await openServer(scenario, applicable).catch((error: unknown) => ({ notRun: describe(error) }));
  if ("notRun" in server) {
    for (const system of applicable) outcomes.set(key(scenario, system), { kind: "not run", why: server.notRun });
    continue;
  }
  try {
    const runOne = async (system: ChaosSystem): Promise<void> => {
      log(`${scenario.key} × ${system.name}`);
      try {
        const cell: Cell = await runCell(system, scenario, server.server, options);
        outcomes.set(key(scenario, system), { kind: "cell", cell });
        log(`${scenario.key} × ${system.name}: ${JSON.stringify(cell)}`);
      } catch (error) {
        outcomes.set(key(scenario, system), { kind: "not run", why: `failed: ${describe(error)}` });
        log(`${scenario.key} × ${system.name} failed: ${describe(error)}`);
      }
    };
    // Side by side only in the quick run and only where one system's fault cannot reach another's
    // run: it halves the time on two cores at the price of noisier recovery figures.
    if (quick && scenario.isolated) await Promise.all(applicable.map(runOne));
    else for (const system of applicable) await runOne(system);
  } finally {
    await server.close();
  }
}

process.stdout.write(
  formatTable({
    systems,
    scenarios,
    outcomes,
    key,
    header: `${options.jobs} jobs per cell, ${WORKERS} worker processes per system, handler ${options.handlerMs} ms, wait after the fault up to ${options.settleMs / 1000} s; ${((Date.now() - started) / 1000).toFixed(0)} s in all`,
  }),
);

function key(scenario: Scenario, system: ChaosSystem): string {
  return `${scenario.key}/${system.name}`;
}

/** The scenario's server, or why there is none; Redis-only scenarios need none. */
async function openServer(
  scenario: Scenario,
  applicable: readonly ChaosSystem[],
): Promise<{ server: Server | null; close(): Promise<void> } | { notRun: string }> {
  const postgres = applicable.some((s) => s.engine === "postgres");
  if (!postgres) return { server: null, close: () => Promise.resolve() };
  if (scenario.server === "shared") {
    if (!(await engineAvailable("postgres"))) return { notRun: `PostgreSQL at ${TEST_POSTGRES_URL} is unreachable` };
    const url = new URL(TEST_POSTGRES_URL);
    url.pathname = "/postgres";
    return { server: { url: url.toString(), privateServer: null, failover: null }, close: () => Promise.resolve() };
  }
  if (scenario.server === "private") {
    if (!privatePostgresAvailable()) return { notRun: "PostgreSQL's server programs (initdb, pg_ctl) were not found" };
    const privateServer = await startPrivatePostgres();
    return { server: { url: privateServer.url, privateServer, failover: null }, close: () => privateServer.stop() };
  }
  if (!haClusterAvailable()) return { notRun: "Patroni, etcd or HAProxy is not installed here" };
  const cluster = await startHaCluster({ database: "postgres" });
  let lost: string | null = null;
  const failover = async (): Promise<void> => {
    const { killed } = await cluster.killPrimary();
    lost = killed;
    await cluster.waitForPrimary(killed);
  };
  // The next cell starts from three nodes again: with one node left, a second kill has nothing to promote.
  const beforeCell = async (): Promise<void> => {
    if (lost === null) return;
    await cluster.restartNode(lost);
    await cluster.waitForReplica(lost);
    lost = null;
  };
  return { server: { url: cluster.url, privateServer: null, failover, beforeCell }, close: () => cluster.stop() };
}

function pick<T>(all: readonly T[], names: string | undefined, name: (item: T) => string): T[] {
  if (names === undefined) return [...all];
  const wanted = names.split(",").map((n) => n.trim().toLowerCase());
  const unknown = wanted.filter((w) => !all.some((item) => name(item).toLowerCase() === w));
  if (unknown.length > 0) throw new Error(`unknown: ${unknown.join(", ")} (known: ${all.map(name).join(", ")})`);
  return all.filter((item) => wanted.includes(name(item).toLowerCase()));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
