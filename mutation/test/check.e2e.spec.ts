import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const CHECK = fileURLToPath(new URL("../src/check.ts", import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const fixture = (name: string) => fileURLToPath(new URL(`fixtures/${name}`, import.meta.url));

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory for a baseline file (which does not exist yet). */
function baselinePath(): string {
  const dir = mkdtempSync(join(tmpdir(), "verq-mutation-check-"));
  dirs.push(dir);
  return join(dir, "baseline.json");
}

/** Runs `pnpm mutation:check` (the script itself, in a child process) on a fixture report. */
function check(report: string, baseline: string, ...flags: string[]) {
  const run = spawnSync(process.execPath, ["--import", TSX_LOADER, CHECK, "--report", report, "--baseline", baseline, ...flags], {
    encoding: "utf8",
  });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

describe("pnpm mutation:check, the mutation-score ratchet", () => {
  it("fails with exit 1 and names each score below the baseline; passes on the baseline's own report", () => {
    const baseline = baselinePath();
    expect(check(fixture("report-base.json"), baseline, "--update").code).toBe(0);

    const dropped = check(fixture("report-dropped.json"), baseline);
    expect(dropped.code).toBe(1);
    expect(dropped.err).toContain("packages/core/src/a.ts: 50.00 % < baseline 75.00 %");
    expect(dropped.err).toContain("total: 50.00 % < baseline 66.67 %");
    expect(dropped.err).not.toContain("b.ts");
  });

  it("--update writes the baseline only when nothing dropped: the baseline only rises", () => {
    const baseline = baselinePath();
    expect(check(fixture("report-base.json"), baseline, "--update").code).toBe(0);
    const written = readFileSync(baseline, "utf8");
    expect(JSON.parse(written)).toEqual({ total: 66.67, files: { "packages/core/src/a.ts": 75, "packages/core/src/b.ts": 50 } });

    const refused = check(fixture("report-dropped.json"), baseline, "--update");
    expect(refused.code).toBe(1);
    expect(readFileSync(baseline, "utf8")).toBe(written);

    const rose = check(fixture("report-raised.json"), baseline);
    expect(rose.code).toBe(0);
    expect(rose.out).toContain("rose: packages/core/src/b.ts 50.00 % -> 100.00 %");
    expect(rose.out).toContain("pnpm mutation:check --update");
    expect(check(fixture("report-raised.json"), baseline, "--update").code).toBe(0);
    expect(JSON.parse(readFileSync(baseline, "utf8"))).toMatchObject({ total: 83.33, files: { "packages/core/src/b.ts": 100 } });
    // What passed before the raise is now below the baseline.
    expect(check(fixture("report-base.json"), baseline).code).toBe(1);
  });

  it("exits 2 with the next step when the report or the baseline is missing", () => {
    const baseline = baselinePath();
    const noReport = check(join(baseline, "..", "none.json"), baseline);
    expect(noReport.code).toBe(2);
    expect(noReport.err).toContain("run `pnpm mutation` first");
    const noBaseline = check(fixture("report-base.json"), baseline);
    expect(noBaseline.code).toBe(2);
    expect(noBaseline.err).toContain("pnpm mutation:check --update");
  });
});
