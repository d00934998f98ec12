import { describe, expect, it } from "vitest";
import { isQueueFull } from "../src/index.ts";

describe("isQueueFull: a queue with a limit and that many jobs leased has no free slot", () => {
  it("is full at and above its limit, never without a limit or without a load", () => {
    expect(isQueueFull({ leased: 2, maxLeased: 2 })).toBe(true);
    expect(isQueueFull({ leased: 3, maxLeased: 2 })).toBe(true);
    expect(isQueueFull({ leased: 1, maxLeased: 2 })).toBe(false);
    expect(isQueueFull({ leased: 0, maxLeased: 1 })).toBe(false);
    expect(isQueueFull({ leased: 1_000, maxLeased: null })).toBe(false);
    expect(isQueueFull(undefined)).toBe(false);
  });
});
