import { describe, expect, it } from "vitest";
import { checkSubscription, isVerqError, type SubscriptionInput } from "../src/index.ts";

const refused = (input: SubscriptionInput): boolean => {
  try {
    checkSubscription(input);
    return false;
  } catch (error) {
    return isVerqError(error, "VERQ_INVALID_ARGUMENT");
  }
};

describe("E1 checkSubscription: both sides of every boundary", () => {
  it("fills in the defaults: from 1, every type, batches of 100, a poll every 250 ms", () => {
    expect(checkSubscription({})).toEqual({ name: undefined, from: 1, types: undefined, batchSize: 100, pollMs: 250 });
  });

  it("from: 0 and any whole number are accepted; -1 and fractions are not", () => {
    expect(checkSubscription({ from: 0 }).from).toBe(0);
    expect(checkSubscription({ from: Number.MAX_SAFE_INTEGER }).from).toBe(Number.MAX_SAFE_INTEGER);
    expect(refused({ from: -1 })).toBe(true);
    expect(refused({ from: 2.5 })).toBe(true);
    expect(refused({ from: Number.NaN })).toBe(true);
  });

  it("batchSize: 1 and 10,000 are accepted; 0 and 10,001 are not", () => {
    expect(checkSubscription({ batchSize: 1 }).batchSize).toBe(1);
    expect(checkSubscription({ batchSize: 10_000 }).batchSize).toBe(10_000);
    expect(refused({ batchSize: 0 })).toBe(true);
    expect(refused({ batchSize: 10_001 })).toBe(true);
  });

  it("pollMs: 1 and one hour are accepted; 0 and one hour and a millisecond are not", () => {
    expect(checkSubscription({ pollMs: 1 }).pollMs).toBe(1);
    expect(checkSubscription({ pollMs: 3_600_000 }).pollMs).toBe(3_600_000);
    expect(refused({ pollMs: 0 })).toBe(true);
    expect(refused({ pollMs: 3_600_001 })).toBe(true);
  });

  it("name: 1 and 128 ASCII identifier characters are accepted; empty, 129, a space or a leading dot are not", () => {
    expect(checkSubscription({ name: "a" }).name).toBe("a");
    expect(checkSubscription({ name: `a${"-".repeat(127)}` }).name).toHaveLength(128);
    expect(checkSubscription({ name: "audit/export:v2_1.x" }).name).toBe("audit/export:v2_1.x");
    expect(refused({ name: "" })).toBe(true);
    expect(refused({ name: `a${"-".repeat(128)}` })).toBe(true);
    expect(refused({ name: "audit export" })).toBe(true);
    expect(refused({ name: ".audit" })).toBe(true);
    expect(refused({ name: "audité" })).toBe(true);
  });

  it("types: named stream types, deduplicated; an empty list or another spelling is refused", () => {
    expect(checkSubscription({ types: ["job", "guid", "job", "ledger-audit"] }).types).toEqual(["job", "guid", "ledger-audit"]);
    expect(refused({ types: [] })).toBe(true);
    expect(refused({ types: ["Job"] })).toBe(true);
    expect(refused({ types: ["job "] })).toBe(true);
  });
});
