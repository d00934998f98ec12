/**
 * Group 8: how long the `verq` CLI takes from start to exit, as a child process: `verq --help`
 * and `verq jobs stats` on a SQLite file of 100 jobs. The built bin
 * (`node packages/cli/dist/bin.js`, what a service that installs @verq/cli runs)
 * next to the same command through tsx from the sources (what `pnpm -s verq` runs, less pnpm's
 * own start) and `node -e ""`, the engine's floor, all in this run. Each round's figure is the
 * median of several starts; each run's exit code and output are checked first.
 *
 * The built bin must be built from the current sources: a full run builds the packages when
 * their `dist` is missing or older than `src`; `--quick` never builds, and reports the built
 * rows as not measured instead.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { JobQueue, openStore } from "@verq/store";
import { lower, type BenchSize, type Figure, type Scenario } from "../scenario.ts";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const BUILT_BIN = join(ROOT, "packages", "cli", "dist", "bin.js");
const SOURCE_BIN = join(ROOT, "packages", "cli", "src", "bin.ts");
/** The packages whose `dist` the built bin runs on. */
const PACKAGES = ["core", "store", "adapters", "cli"] as const;
const HELP_GROUP = "8a. CLI start to exit: verq --help";
const STATS_GROUP = "8b. CLI start to exit: verq jobs stats, 100 jobs";
const JOBS = 100;
const STARTS_PER_ROUND = 7;
const RUNS = `median of ${STARTS_PER_ROUND} starts per round after one not counted (one start in --quick)`;

/** The environment of a plain `node` process: no source condition, no test runner settings. */
function plainEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  delete env.VITEST;
  return env;
}

/** The newest modification time (ms) of the files under `dir`, 0 for none. */
function newest(dir: string): number {
  if (!existsSync(dir)) return 0;
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

/** Why the built bin cannot be measured as it is (missing, or older than a source), or null when it can. */
function staleBuild(): string | null {
  if (!existsSync(BUILT_BIN)) return "packages/cli/dist/bin.js is not built";
  for (const name of PACKAGES) {
    const dir = join(ROOT, "packages", name);
    if (newest(join(dir, "src")) > newest(join(dir, "dist"))) return `packages/${name}/dist is older than its src`;
  }
  return null;
}

let built: true | string | undefined;

/** Builds the packages once per run when their `dist` is stale; `--quick` never builds. */
function ensureBuilt(quick: boolean): true | string {
  if (built !== undefined) return built;
  const stale = staleBuild();
  if (stale === null) return (built = true);
  if (quick) return (built = `${stale} (--quick does not build; run \`pnpm build\`)`);
  const run = spawnSync("npx", ["-y", "pnpm@10", "-s", "build"], { cwd: ROOT, env: plainEnv(), encoding: "utf8" });
  if (run.status !== 0) return (built = `pnpm build failed: ${run.stderr.slice(0, 200)}`);
  return (built = staleBuild() ?? true);
}

const statsDbs = new Map<string, Promise<string>>();

/** The round's SQLite file of {@link JOBS} pending jobs, made once per round (per `size.dir`). */
function statsDb(size: BenchSize): Promise<string> {
  let db = statsDbs.get(size.dir);
  if (db === undefined) {
    db = (async () => {
      const path = join(size.dir, "cli-stats.sqlite");
      const store = await openStore({ path });
      try {
        const queue = new JobQueue(store);
        for (let i = 0; i < JOBS; i++) await queue.enqueue({ id: `cli-${i}`, payload: { i }, deadline: Date.now() + 86_400_000 });
      } finally {
        await store.close();
      }
      return path;
    })();
    statsDbs.set(size.dir, db);
  }
  return db;
}

/** How one system starts a command. */
interface Start {
  readonly system: string;
  readonly settings: string;
  readonly argv: (args: readonly string[]) => string[];
  readonly env: () => NodeJS.ProcessEnv;
  readonly needsBuild?: boolean;
}

const STARTS: readonly Start[] = [
  {
    system: "verq (built bin)",
    settings: "`node packages/cli/dist/bin.js …`: the compiled CLI, as a service that installs @verq/cli runs it",
    argv: (args) => [BUILT_BIN, ...args],
    env: plainEnv,
    needsBuild: true,
  },
  {
    system: "tsx from the sources",
    settings:
      "`node --conditions=verq-source --import tsx packages/cli/src/bin.ts …`: what `pnpm -s verq` runs, without pnpm's own start",
    argv: (args) => ["--conditions=verq-source", "--import", "tsx", SOURCE_BIN, ...args],
    env: plainEnv,
  },
];

const FLOOR: Start = {
  system: 'node -e "" (the floor)',
  settings: '`node -e ""`: the engine\'s own start and exit, nothing loaded',
  argv: () => ["-e", ""],
  env: plainEnv,
};

/** Wall time (ms) of one child process from spawn to exit, after checking it exited 0 with `expect` in its stdout. */
function timeStart(start: Start, args: readonly string[], expect: string): number {
  const began = performance.now();
  const run = spawnSync(process.execPath, start.argv(args), { cwd: ROOT, env: start.env(), encoding: "utf8" });
  const ms = performance.now() - began;
  if (run.status !== 0 || !run.stdout.includes(expect))
    throw new Error(`${start.system} ${args.join(" ")} exited ${run.status}: ${(run.stderr || run.stdout).slice(0, 300)}`);
  return ms;
}

/** The median of 7 starts after one that is not counted (it warms the disk cache); in `--quick`, one start. */
function medianStart(start: Start, args: readonly string[], expect: string, size: BenchSize): Figure {
  if (size.quick) return lower(timeStart(start, args, expect), "ms");
  timeStart(start, args, expect);
  const times = Array.from({ length: STARTS_PER_ROUND }, () => timeStart(start, args, expect)).sort((a, b) => a - b);
  return lower(times[Math.floor(times.length / 2)] ?? Number.NaN, "ms");
}

/** `verq --help` and `verq jobs stats` from the built bin and through tsx, and the floor. */
export function cliStartScenarios(): Scenario[] {
  const scenarios: Scenario[] = [];
  for (const start of STARTS) {
    const available =
      start.needsBuild === true ? { available: (size: BenchSize) => Promise.resolve(ensureBuilt(size.quick)) } : {};
    scenarios.push(
      {
        group: HELP_GROUP,
        system: start.system,
        settings: `${start.settings}; ${RUNS}`,
        ...available,
        run: (size) => Promise.resolve({ "start to exit ms": medianStart(start, ["--help"], "Usage: verq", size) }),
      },
      {
        group: STATS_GROUP,
        system: start.system,
        settings: `${start.settings}; ${RUNS}`,
        ...available,
        async run(size) {
          const db = await statsDb(size);
          return { "start to exit ms": medianStart(start, ["jobs", "stats", "--db", db], `pending=${JOBS} `, size) };
        },
      },
    );
  }
  scenarios.push({
    group: HELP_GROUP,
    alsoIn: [STATS_GROUP],
    system: FLOOR.system,
    settings: `${FLOOR.settings}; ${RUNS}`,
    run: (size) => Promise.resolve({ "start to exit ms": medianStart(FLOOR, [], "", size) }),
  });
  return scenarios;
}
