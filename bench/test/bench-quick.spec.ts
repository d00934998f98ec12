import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** Set by `.ci/run`: the baselines' services (Redis, PostgreSQL) must be there, never "not measured". */
const requireServices = process.env.VERQ_REQUIRE_POSTGRES === "1";

/**
 * Proves the harness works end to end with tiny sizes: every figure group gets a row, every
 * scenario runs without failing (each verifies its own outcome before it reports a figure),
 * and the targets are evaluated. Speed is not asserted here: that is what `pnpm bench` reports.
 */
it("`pnpm bench --quick` prints one table with every figure, the baselines and the targets", () => {
  const run = spawnSync("npx", ["-y", "pnpm@10", "-s", "bench", "--quick"], { cwd: root, encoding: "utf8", timeout: 240_000 });
  expect(run.status, run.stdout + run.stderr).toBe(0);
  const table = run.stdout;
  expect(table).toMatch(/\| figure \| system \| median \| min \| max \| runs \| verq advantage \|/);
  expect(table).toMatch(/What each row measured, with its durability settings:/);
  for (const group of ["1a.", "1b.", "2a.", "2b.", "2c.", "2d.", "2e.", "3.", "4a.", "4b.", "5.", "6a.", "6b.", "7."]) {
    expect(table, `a row for figure group ${group}`).toMatch(new RegExp(`\\n\\| ${group.replace(".", "\\.")} [^|]*\\| verq`));
  }
  for (const group of ["2a.", "2b."]) {
    const replay = new RegExp(
      `\\n\\| ${group.replace(".", "\\.")} [^|]*\\| verq's statements replayed \\(schema limit\\) \\| \\d[^\\n]*\\| \\d+\\.\\d\\d× \\|`,
    );
    expect(table, `the schema-limit replay in ${group}, with verq's ratio to it`).toMatch(replay);
  }
  for (const baseline of ["raw better-sqlite3", "plainjob", "BullMQ", "pg-boss"]) {
    const measured = new RegExp(`\\| ${baseline} \\| (?!not measured)`).test(table);
    if (requireServices) expect(measured, `${baseline} measured`).toBe(true);
    else if (!measured)
      console.warn(
        `[bench smoke] ${baseline} not measured here: ${table.match(new RegExp(`${baseline} \\| not measured: [^|]*`))?.[0] ?? "?"}`,
      );
  }
  expect(table).toMatch(/Targets \(verq on SQLite unless the line says PostgreSQL, in this run\):/);
  for (const target of ["2a lifecycle", "2b lifecycle", "2c processing"])
    expect(table, `the target line of ${target}`).toMatch(
      new RegExp(`\\n- ${target}[^\\n]*: [\\d.]+× [^\\n]* — (met|MISSED)\\n`),
    );
  expect(table).not.toMatch(/Failed scenarios/);
  expect(table).not.toMatch(/\| (NaN|–) \|/);
}, 300_000);
