import { describe, expect, it } from "vitest";
import { DEAD_REASONS, endsRedriveSweep, sweepSkippedReasons, type JobRefusal } from "../src/index.ts";

describe("what a sweep over dead jobs passes over", () => {
  it("cancelled jobs, when the sweep names no reason: an operator's cancel is not undone by a sweep", () => {
    expect(sweepSkippedReasons(undefined)).toEqual(["cancelled"]);
  });

  it("nothing, when the sweep names a reason: it takes that reason only, cancelled included", () => {
    for (const reason of DEAD_REASONS) expect(sweepSkippedReasons(reason)).toEqual([]);
  });
});

describe("endsRedriveSweep: the redrive limit reached ends a sweep over dead jobs", () => {
  it("ends at rate-limited only", () => {
    expect(endsRedriveSweep("rate-limited")).toBe(true);
    const others: JobRefusal[] = ["not-dead", "invalid-note", "invalid-deadline", "unknown-job", "archived-id"];
    for (const refusal of others) expect(endsRedriveSweep(refusal)).toBe(false);
  });
});
