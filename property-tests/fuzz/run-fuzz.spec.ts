import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { FUZZ_RUNS, parseFuzzArgs } from "./fuzz-args.ts";
import { formatFuzzTable } from "./fuzz-table.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("pnpm fuzz", () => {
  it(
    "runs the machines' table properties for a tiny budget, as a real process, and prints their table",
    { timeout: 180_000 },
    async () => {
      const regressions = mkdtempSync(join(tmpdir(), "verq-fuzz-"));
      try {
        const args = ["--property", "machines", "--minutes", "0.05", "--engine", "sqlite", "--regressions", regressions];
        const { stdout } = await promisify(execFile)("npx", ["-y", "pnpm@10", "-s", "fuzz", ...args], {
          cwd: root,
          encoding: "utf8",
          timeout: 170_000,
        });
        // Each search prints its seed first; the table repeats it.
        const printed = [...stdout.matchAll(/^\[fc\] (table-\w+) fresh seed=(\d+) box=1000ms$/gm)].map((m) => [m[1], m[2]]);
        expect(printed.map(([name]) => name)).toEqual(["table-job", "table-guid", "table-message"]);
        expect(stdout).toMatch(/^\| property +\| engine \| +seed \| +runs \| +time \| outcome \|$/m);
        for (const [name, seed] of printed) {
          const row = new RegExp(`^\\| ${name} +\\| - +\\| +${seed} \\| +([\\d,]+) \\| +[\\d.]+ s \\| passed +\\|$`, "m").exec(
            stdout,
          );
          expect(row, `a row for ${name}`).not.toBeNull();
          expect(Number(row?.[1]?.replaceAll(",", ""))).toBeGreaterThan(0);
        }
        expect(readdirSync(regressions)).toEqual([]);
      } finally {
        rmSync(regressions, { recursive: true, force: true });
      }
    },
  );

  it("reads its arguments, and refuses bad ones with the usage", () => {
    expect(parseFuzzArgs([])).toMatchObject({
      numRuns: process.env["FC_NUM_RUNS"] === undefined ? FUZZ_RUNS : Number(process.env["FC_NUM_RUNS"]),
      minutes: undefined,
      engines: ["sqlite", "postgres"],
    });
    expect(parseFuzzArgs(["--minutes", "2", "--engine", "postgres", "--property", "jobs"])).toMatchObject({
      numRuns: undefined,
      minutes: 2,
      engines: ["postgres"],
      property: "jobs",
    });
    expect(parseFuzzArgs(["--runs", "50", "--seed", "7"])).toMatchObject({ numRuns: 50, seed: 7 });
    expect(() => parseFuzzArgs(["--engine", "mysql"])).toThrow(/--engine must be sqlite, postgres or both.*\n.*usage: pnpm fuzz/);
    expect(() => parseFuzzArgs(["--minutes", "0"])).toThrow(/--minutes must be a positive number/);
    expect(() => parseFuzzArgs(["--runs", "1.5"])).toThrow(/--runs must be a whole number/);
    expect(() => parseFuzzArgs(["--nope"])).toThrow(/nope/);
  });

  it("prints a Markdown table with the numbers right-aligned", () => {
    const table = formatFuzzTable([
      { property: "jobs-model", engine: "sqlite", seed: 12, runs: 1234, ms: 4_060, outcome: "passed" },
      { property: "table-job", engine: "-", seed: 345, runs: 5, ms: 60, outcome: "FAILED: x.json" },
    ]);
    expect(table.split("\n")).toEqual([
      "| property   | engine | seed |  runs |  time | outcome        |",
      "|------------|--------|-----:|------:|------:|----------------|",
      "| jobs-model | sqlite |   12 | 1,234 | 4.1 s | passed         |",
      "| table-job  | -      |  345 |     5 | 0.1 s | FAILED: x.json |",
    ]);
  });
});
