import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** Set by `.ci/run`: PostgreSQL must be there, never "not measured". */
const requireServices = process.env.VERQ_REQUIRE_POSTGRES === "1";

const GROUPS = ["1c.", "1d.", "2f.", "2g."];
const SYSTEMS = ["verq on PostgreSQL", "graphile-worker", "pg-boss"];

/**
 * Proves the PostgreSQL groups, which `--quick` leaves out, with tiny sizes and one round: each
 * group has a row of verq on PostgreSQL, graphile-worker and pg-boss; every scenario runs
 * without failing (each verifies its own outcome); the settings the three share are printed;
 * the graphile-worker targets are evaluated. Speed is not asserted here.
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
  for (const group of GROUPS) {
    for (const system of SYSTEMS) {
      const row = new RegExp(`\\n\\| ${group.replace(".", "\\.")} [^|]*\\| ${system}( \\([^)]*\\))? \\|`);
      expect(table, `a row of ${system} in ${group}`).toMatch(row);
    }
  }
  if (measured) {
    expect(table).toMatch(/PostgreSQL settings of this run, one server for verq, graphile-worker and pg-boss:/);
    expect(table).toMatch(/synchronous_commit=\w+ \(`show synchronous_commit`/);
    expect(table).toMatch(/\| 2g\. \| verq on PostgreSQL \(batchSize 100\) \| 4 \| 8 \| 10 \|/);
  }
  expect(table.match(/verq on PostgreSQL ahead of graphile-worker at its best documented settings/g)).toHaveLength(2);
  expect(table).not.toMatch(/Failed scenarios/);
  expect(table).not.toMatch(/\| (NaN|–) \|/);
}, 300_000);
