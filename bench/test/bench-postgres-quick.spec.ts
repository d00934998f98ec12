import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** Set by `.ci/run`: PostgreSQL must be there, never "not measured". */
const requireServices = process.env.VERQ_REQUIRE_POSTGRES === "1";

/** The PostgreSQL groups and the systems each puts side by side. */
const GROUPS: Record<string, readonly string[]> = {
  "1c.": ["verq on PostgreSQL", "verq's statements replayed on PostgreSQL", "graphile-worker", "pg-boss"],
  "1d.": ["verq on PostgreSQL", "verq's statements replayed on PostgreSQL", "graphile-worker", "pg-boss"],
  "2f.": ["verq on PostgreSQL", "verq's statements replayed on PostgreSQL", "graphile-worker", "pg-boss"],
  "2g.": ["verq on PostgreSQL", "graphile-worker", "pg-boss"],
  "3b.": ["verq on PostgreSQL", "graphile-worker", "pg-boss"],
  "6c.": ["verq on PostgreSQL"],
};
/** The cost figures the worker rows of verq and graphile-worker report beside their rate. */
const COSTS = ["µs CPU/job \\(node\\)", "µs CPU/job \\(postgres\\)", "round trips/job"];

const row = (group: string, figure: string, system: string): RegExp =>
  new RegExp(`\\n\\| ${group.replace(".", "\\.")} [^|]*: ${figure} \\| ${system}( \\([^)]*\\))? \\| \\d`);

/**
 * Proves the PostgreSQL groups, which `--quick` leaves out, with tiny sizes and one round: each
 * group has its rows of verq on PostgreSQL and the baselines; the worker rows of verq and
 * graphile-worker, and the replays of verq's own statements (1c, 1d, 2f), report CPU per job
 * (the process and the backends) and round trips per job;
 * every scenario runs without failing (each verifies its own outcome, 6c checks the store it
 * filled); the settings the systems share are printed; the PostgreSQL targets are evaluated.
 * Speed is not asserted here.
 */
it("`pnpm bench --quick --only PostgreSQL` puts verq on PostgreSQL beside graphile-worker and pg-boss, with the settings they share", () => {
  const run = spawnSync("npx", ["-y", "pnpm@10", "-s", "bench", "--quick", "--only", "PostgreSQL", "--rounds", "1"], {
    cwd: root,
    encoding: "utf8",
    timeout: 240_000,
  });
  expect(run.status, run.stdout + run.stderr).toBe(0);
  const table = run.stdout;
  const measured = !/\| not measured: /.test(table);
  if (requireServices) expect(measured, "PostgreSQL measured").toBe(true);
  else if (!measured)
    console.warn(`[bench smoke] PostgreSQL not measured here: ${table.match(/not measured: [^|]*/)?.[0] ?? "?"}`);
  for (const [group, systems] of Object.entries(GROUPS)) {
    for (const system of systems) {
      const any = new RegExp(`\\n\\| ${group.replace(".", "\\.")} [^|]*\\| ${system}( \\([^)]*\\))? \\|`);
      expect(table, `a row of ${system} in ${group}`).toMatch(any);
    }
  }
  if (measured) {
    for (const group of ["2f.", "2g."])
      for (const system of ["verq on PostgreSQL", "graphile-worker"])
        for (const figure of COSTS) expect(table, `${figure} of ${system} in ${group}`).toMatch(row(group, figure, system));
    for (const group of ["1c.", "1d.", "2f."])
      for (const figure of COSTS) {
        const system = "verq's statements replayed on PostgreSQL";
        expect(table, `${figure} of ${system} in ${group}`).toMatch(row(group, figure, system));
      }
    expect(table).toMatch(/PostgreSQL settings of this run, one server for verq, graphile-worker and pg-boss:/);
    expect(table).toMatch(/synchronous_commit=\w+ \(`show synchronous_commit`/);
    expect(table).toMatch(/\| 2g\. \| verq on PostgreSQL \(batchSize 500\) \| 4 \| 8 \| 10 \|/);
    for (const target of ["2f PostgreSQL", "2g PostgreSQL", "1d PostgreSQL", "1c PostgreSQL", "6c PostgreSQL", "3b PostgreSQL"])
      expect(table, `the target line of ${target}`).toMatch(new RegExp(`\\n- ${target}[^\\n]*: [^\\n]* — (met|MISSED)\\n`));
  }
  expect(table).not.toMatch(/Failed scenarios/);
  expect(table).not.toMatch(/\| (NaN|–) \|/);
}, 300_000);
