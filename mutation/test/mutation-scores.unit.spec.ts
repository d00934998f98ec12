import { readFileSync } from "node:fs";
import type { MutationTestResult } from "mutation-testing-report-schema";
import { describe, expect, it } from "vitest";
import { mutationScores } from "../src/mutation-scores.ts";
import { ratchet } from "../src/ratchet.ts";

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`fixtures/${name}`, import.meta.url), "utf8")) as MutationTestResult;

describe("mutationScores: Stryker's mutation score per file and in total", () => {
  it("counts killed and timed-out over killed, timed-out, survived and uncovered; ignored and invalid mutants are out", () => {
    expect(mutationScores(fixture("report-base.json"))).toEqual({
      total: 66.67,
      files: { "packages/core/src/a.ts": 75, "packages/core/src/b.ts": 50 },
    });
  });
});

describe("ratchet: no score below its baseline", () => {
  const base = mutationScores(fixture("report-base.json"));

  it("names each file and the total that dropped", () => {
    expect(ratchet(base, mutationScores(fixture("report-dropped.json"))).drops).toEqual([
      { file: "packages/core/src/a.ts", baseline: 75, current: 50 },
      { file: undefined, baseline: 66.67, current: 50 },
    ]);
  });

  it("names what rose, and nothing dropped", () => {
    expect(ratchet(base, mutationScores(fixture("report-raised.json")))).toEqual({
      drops: [],
      raised: [
        { file: "packages/core/src/b.ts", from: 50, to: 100 },
        { file: undefined, from: 66.67, to: 83.33 },
      ],
    });
  });

  it("a file of the baseline missing from the report is a drop; a file new to it is not", () => {
    const now = mutationScores(fixture("report-base.json"));
    const { drops, raised } = ratchet(
      { total: base.total, files: { ...base.files, "packages/core/src/gone.ts": 90 } },
      { total: now.total, files: { "packages/core/src/a.ts": 75, "packages/core/src/b.ts": 50, "packages/core/src/new.ts": 10 } },
    );
    expect(drops).toEqual([{ file: "packages/core/src/gone.ts", baseline: 90, current: undefined }]);
    expect(raised).toEqual([{ file: "packages/core/src/new.ts", from: undefined, to: 10 }]);
  });

  it("equal scores hold", () => {
    expect(ratchet(base, base)).toEqual({ drops: [], raised: [] });
  });
});
