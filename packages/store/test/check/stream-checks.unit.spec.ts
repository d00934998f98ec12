import { STREAM_TYPES } from "@verq/core";
import { describe, expect, it } from "vitest";
import { STREAM_CHECKS } from "../../src/check/check-store.ts";

/*
 * verq check has one check for each of core's stream types, and each one reads the streams of
 * the type it is filed under: a check filed under the wrong type would leave a type unchecked.
 */
describe("STREAM_CHECKS", () => {
  it("holds a check for exactly core's STREAM_TYPES, each reading its own type", () => {
    expect(Object.keys(STREAM_CHECKS).sort()).toEqual([...STREAM_TYPES].sort());
    for (const type of STREAM_TYPES) expect(STREAM_CHECKS[type].streamType, type).toBe(type);
  });
});
