import { describe, expect, it } from "vitest";
import {
  MAX_ATTEMPTS_LIMIT,
  MAX_IDENTIFIER_LENGTH,
  MAX_LEASE_MS,
  MAX_PRIORITY,
  MAX_QUEUE_LIMIT,
  MIN_PRIORITY,
  checkFutureTime,
  checkIdentifier,
  checkLeaseMs,
  checkMaxAttempts,
  checkOutcome,
  checkPriority,
  checkQueueLimit,
  checkQueueName,
  checkTime,
  checkToken,
} from "../src/index.ts";

/** What `check` threw for `value`: its code and message (the test fails when it returned). */
function thrown(check: () => unknown): { code: unknown; message: string } {
  try {
    check();
  } catch (error) {
    const { code, message } = error as { code?: unknown; message: string };
    return { code, message };
  }
  throw new Error("expected a throw");
}

describe("the input rules of job commands", () => {
  it("an identifier is 1 to 256 printable characters, returned as it is", () => {
    for (const ok of ["a", "order-1", "x".repeat(MAX_IDENTIFIER_LENGTH), "émile 42", "a b"]) {
      expect(checkIdentifier(ok, "a job id")).toBe(ok);
    }
    expect(MAX_IDENTIFIER_LENGTH).toBe(256);
    for (const bad of [
      "",
      "x".repeat(MAX_IDENTIFIER_LENGTH + 1),
      "a\nb",
      "tab\there",
      "nul\u0000",
      "\ud800",
      7,
      null,
      undefined,
    ]) {
      expect(thrown(() => checkIdentifier(bad, "a job id"))).toEqual({
        code: "VERQ_INVALID_ID",
        message: "a job id must be 1 to 256 printable characters",
      });
    }
  });

  it("an identifier's code can be another, and the message never quotes the value", () => {
    expect(thrown(() => checkIdentifier("", "an owner", "VERQ_INVALID_ARGUMENT"))).toEqual({
      code: "VERQ_INVALID_ARGUMENT",
      message: "an owner must be 1 to 256 printable characters",
    });
    expect(thrown(() => checkIdentifier("secret\n", "an owner")).message).not.toContain("secret");
  });

  it("a lease is a whole number of ms from 1 to one day", () => {
    expect(MAX_LEASE_MS).toBe(86_400_000);
    for (const ok of [1, 30_000, MAX_LEASE_MS]) expect(checkLeaseMs(ok)).toBe(ok);
    for (const bad of [0, -1, MAX_LEASE_MS + 1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "100", null]) {
      expect(thrown(() => checkLeaseMs(bad))).toEqual({
        code: "VERQ_INVALID_LEASE",
        message: "the lease must be a whole number of milliseconds from 1 to 86400000",
      });
    }
  });

  it("a token is a whole number of at least 1", () => {
    for (const ok of [1, 2, Number.MAX_SAFE_INTEGER]) expect(checkToken(ok)).toBe(ok);
    for (const bad of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1, "1", undefined]) {
      expect(thrown(() => checkToken(bad))).toEqual({
        code: "VERQ_INVALID_ARGUMENT",
        message: "a token is a whole number of at least 1, as returned by claim",
      });
    }
  });

  it("an attempt budget is a whole number from 1 to 1000", () => {
    expect(MAX_ATTEMPTS_LIMIT).toBe(1_000);
    for (const ok of [1, 5, MAX_ATTEMPTS_LIMIT]) expect(checkMaxAttempts(ok)).toBe(ok);
    for (const bad of [0, MAX_ATTEMPTS_LIMIT + 1, 2.5, "3", null]) {
      expect(thrown(() => checkMaxAttempts(bad))).toEqual({
        code: "VERQ_INVALID_ARGUMENT",
        message: "maxAttempts must be a whole number from 1 to 1000",
      });
    }
  });

  it("a deadline is a whole number of ms strictly after now", () => {
    expect(checkFutureTime(1_001, 1_000, "the deadline")).toBe(1_001);
    for (const bad of [1_000, 999, 1_000.5, Number.POSITIVE_INFINITY, "2000", null]) {
      expect(thrown(() => checkFutureTime(bad, 1_000, "the deadline"))).toEqual({
        code: "VERQ_INVALID_DEADLINE",
        message: "the deadline must be a whole number of ms since the epoch, later than now",
      });
    }
  });

  it("a time is a whole, non-negative number of ms", () => {
    for (const ok of [0, 1, 1_700_000_000_000]) expect(checkTime(ok, "now")).toBe(ok);
    for (const bad of [-1, 0.5, Number.NaN, "0", undefined]) {
      expect(thrown(() => checkTime(bad, "now"))).toEqual({
        code: "VERQ_INVALID_ARGUMENT",
        message: "now must be a whole number of ms since the epoch",
      });
    }
  });

  it("an outcome is ok, retry or permanent", () => {
    for (const ok of ["ok", "retry", "permanent"]) expect(checkOutcome(ok)).toBe(ok);
    for (const bad of ["", "OK", "done", 1, null]) {
      expect(thrown(() => checkOutcome(bad))).toEqual({
        code: "VERQ_INVALID_ARGUMENT",
        message: "the outcome must be one of ok, retry, permanent",
      });
    }
  });
});

describe("the input rules of queues", () => {
  it("a queue name is an identifier, refused as VERQ_INVALID_ARGUMENT", () => {
    expect(checkQueueName("emails")).toBe("emails");
    expect(thrown(() => checkQueueName(""))).toEqual({
      code: "VERQ_INVALID_ARGUMENT",
      message: "a queue name must be 1 to 256 printable characters",
    });
  });

  it("a priority is a whole number from -1000 to 1000", () => {
    expect([MIN_PRIORITY, MAX_PRIORITY]).toEqual([-1_000, 1_000]);
    for (const ok of [MIN_PRIORITY, 0, MAX_PRIORITY]) expect(checkPriority(ok)).toBe(ok);
    for (const bad of [MIN_PRIORITY - 1, MAX_PRIORITY + 1, 0.5, "1", null]) {
      expect(thrown(() => checkPriority(bad))).toEqual({
        code: "VERQ_INVALID_ARGUMENT",
        message: "a priority must be a whole number from -1000 to 1000",
      });
    }
  });

  it("a queue limit is a whole number from 1 to 1000000, or null", () => {
    expect(MAX_QUEUE_LIMIT).toBe(1_000_000);
    expect(checkQueueLimit(null)).toBeNull();
    for (const ok of [1, MAX_QUEUE_LIMIT]) expect(checkQueueLimit(ok)).toBe(ok);
    for (const bad of [0, MAX_QUEUE_LIMIT + 1, 1.5, undefined, "3"]) {
      expect(thrown(() => checkQueueLimit(bad))).toEqual({
        code: "VERQ_INVALID_ARGUMENT",
        message: "maxLeased must be a whole number from 1 to 1000000, or null for no limit",
      });
    }
  });
});
