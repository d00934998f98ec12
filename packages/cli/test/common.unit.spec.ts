import type { StoredEvent } from "@verq/store";
import { describe, expect, it } from "vitest";
import { describeEvent, parseChoice, parseDuration, parseHttpUrl, parseWholeNumber } from "../src/common.ts";

const refused = expect.objectContaining({ code: "VERQ_INVALID_ARGUMENT" }) as unknown;

describe("durations", () => {
  it.each([
    ["500ms", 500],
    ["30s", 30_000],
    ["10m", 600_000],
    ["2h", 7_200_000],
    ["7d", 604_800_000],
  ])("%s is %i ms", (text, ms) => expect(parseDuration(text)).toBe(ms));
  it.each(["", "10", "1.5s", "-1s", "10 minutes", "1w"])("%j is refused", (text) => {
    expect(() => parseDuration(text)).toThrow(refused);
  });
  it("a range is checked after the unit is applied", () => {
    expect(parseDuration("1s", "--poll", { min: 1, max: 1_000 })).toBe(1_000);
    expect(() => parseDuration("0ms", "--poll", { min: 1 })).toThrow(/--poll must be at least 1ms/);
    expect(() => parseDuration("2s", "--poll", { max: 1_000 })).toThrow(/--poll must be at most 1000ms/);
  });
});

describe("whole numbers", () => {
  it.each([
    ["0", 0],
    ["7", 7],
    ["007", 7],
    ["9007199254740991", Number.MAX_SAFE_INTEGER],
  ])("%j is %i", (text, n) => expect(parseWholeNumber(text, "--n")).toBe(n));
  it.each(["", "-1", "1.5", "1e3", " 1", "0x10", "9007199254740992", "seven"])("%j is refused", (text) => {
    expect(() => parseWholeNumber(text, "--n")).toThrow(refused);
  });
  it("a range names its bounds", () => {
    expect(() => parseWholeNumber("0", "--limit", { min: 1 })).toThrow(/--limit must be a whole number of at least 1; got "0"/);
    expect(() => parseWholeNumber("70000", "--port", { max: 65_535 })).toThrow(/--port must be a whole number from 0 to 65535/);
  });
});

describe("choices and URLs", () => {
  it("a choice is one of the words, exactly", () => {
    expect(parseChoice("retry", "--outcome", ["ok", "retry"])).toBe("retry");
    expect(() => parseChoice("OK", "--outcome", ["ok", "retry"])).toThrow(/--outcome must be ok, retry; got "OK"/);
  });
  it("a URL is absolute http or https", () => {
    expect(parseHttpUrl("http://127.0.0.1:8080/in", "--target")).toBe("http://127.0.0.1:8080/in");
    expect(parseHttpUrl("https://example.org", "--target")).toBe("https://example.org");
    for (const bad of ["not a url", "/relative", "127.0.0.1:8080", "file:///etc/passwd", "ftp://h/"]) {
      expect(() => parseHttpUrl(bad, "--target")).toThrow(refused);
    }
  });
});

describe("describeEvent", () => {
  const event = (data: Record<string, unknown>): StoredEvent => ({
    position: 3,
    streamType: "job",
    streamId: "a",
    version: 2,
    type: "job.claimed",
    data,
    at: 0,
    schemaVersion: 1,
  });
  it("prints version, time, type and fields, without `at` and the hidden fields", () => {
    expect(describeEvent(event({ token: 1, owner: "w1", payload: { secret: 1 }, at: 0 }), ["payload"])).toBe(
      "  v2 1970-01-01T00:00:00.000Z job.claimed token=1 owner=w1",
    );
    expect(describeEvent(event({ at: 0 }))).toBe("  v2 1970-01-01T00:00:00.000Z job.claimed");
  });
});
