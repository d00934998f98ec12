import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PropertyFailed } from "./property-failure.ts";
import { errorLine, loadRegressions, regressionFile, regressionSlug, saveRegression, type Regression } from "./regression.ts";
import { replayRegression, searchAndKeep } from "./search-and-keep.ts";
import { toyProperty } from "./toy-property.ts";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "verq-regressions-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const sample: Regression = {
  property: "jobs-model",
  engine: "postgres",
  seed: 42,
  path: "7:1:0",
  replayPath: "BAC:VV",
  found: "2026-01-02T03:04:05.000Z",
  message: "[b J4] finish accepted",
};

describe("regression files", () => {
  it("are named <slug>/<seed>-<8 hex of the path's hash>.json, one per case", () => {
    expect(regressionSlug("Jobs model [sqlite]")).toBe("jobs-model-sqlite");
    expect(regressionFile("jobs-model", sample)).toMatch(/^jobs-model\/42-[0-9a-f]{8}\.json$/);
    expect(regressionFile("jobs-model", { seed: 42, path: "7:1:1" })).not.toBe(regressionFile("jobs-model", sample));
  });

  it("are written as JSON and read back as they were written", () => {
    const file = saveRegression(root, sample);
    expect(JSON.parse(readFileSync(join(root, file), "utf8"))).toEqual(sample);
    expect(saveRegression(root, sample)).toBe(file);
    expect(readdirSync(join(root, "jobs-model"))).toHaveLength(1);
    const other = saveRegression(root, { ...sample, seed: 7, engine: null, replayPath: null });
    // In file name order: "42-…" before "7-…".
    expect(loadRegressions(root, "jobs-model")).toEqual([
      { file, regression: sample },
      { file: other, regression: { ...sample, seed: 7, engine: null, replayPath: null } },
    ]);
  });

  it("of a property that has none are an empty list", () => {
    saveRegression(root, sample);
    expect(loadRegressions(root, "ledger-model")).toEqual([]);
  });

  it("that are broken or another property's are refused, naming the file", () => {
    mkdirSync(join(root, "jobs-model"));
    writeFileSync(join(root, "jobs-model", "1-bad.json"), "{ not json");
    expect(() => loadRegressions(root, "jobs-model")).toThrow(/jobs-model\/1-bad\.json: not JSON/);
    writeFileSync(join(root, "jobs-model", "1-bad.json"), JSON.stringify({ ...sample, property: "ledger-model" }));
    expect(() => loadRegressions(root, "jobs-model")).toThrow(/1-bad\.json: property "ledger-model"/);
    writeFileSync(join(root, "jobs-model", "1-bad.json"), JSON.stringify({ ...sample, path: "seven" }));
    expect(() => loadRegressions(root, "jobs-model")).toThrow(/1-bad\.json: path is not a fast-check path/);
  });

  it("keep the first line of the error fast-check reports", () => {
    expect(errorLine("Property failed after 1 tests\n{ seed: 1 }\nGot error: Error: [x] broke\n\nStack trace")).toBe(
      "Error: [x] broke",
    );
    expect(errorLine("Property interrupted after 0 tests\nmore")).toBe("Property interrupted after 0 tests");
  });
});

describe("a failing search", () => {
  it("saves its shrunk case, fails naming the file, and the file replays the case", async () => {
    const failing = toyProperty("toy-limit", 1_000);
    const { failure } = await searchAndKeep(failing, null, { fresh: { seed: 3, numRuns: 100 } }, root);
    expect(failure).not.toBeNull();
    expect(failure?.error).toBeInstanceOf(PropertyFailed);
    expect(failure?.error.message).toMatch(/Counterexample: \[1001\]/);
    expect(failure?.error.message).toMatch(/Saved as .*toy-limit\/3-[0-9a-f]{8}\.json: commit it/);
    const [loaded, ...more] = loadRegressions(root, "toy-limit");
    expect(more).toEqual([]);
    expect(loaded?.regression).toMatchObject({ property: "toy-limit", engine: null, seed: 3, replayPath: null });
    expect(loaded?.regression.message).toBe("[toy] 1001 is over 1000");
    if (loaded === undefined) return;
    await expect(replayRegression(failing, null, loaded)).rejects.toThrow(/toy-limit\/3-[0-9a-f]{8}\.json .* fails again/);
    await expect(replayRegression(toyProperty("toy-limit", 2_000), null, loaded)).resolves.toMatchObject({ numRuns: 1 });
  });

  it("that holds writes nothing", async () => {
    const { summary, failure } = await searchAndKeep(
      toyProperty("toy-holds", 1_000_000),
      null,
      { fresh: { seed: 3, numRuns: 50 } },
      root,
    );
    expect(failure).toBeNull();
    expect(summary).toEqual({ seed: 3, numRuns: 50, interrupted: false });
    expect(readdirSync(root)).toEqual([]);
  });
});
