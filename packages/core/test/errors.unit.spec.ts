import { describe, expect, it } from "vitest";
import {
  BadAck,
  GuidError,
  ManualClock,
  MessageError,
  Permanent,
  Retryable,
  VerqError,
  VersionConflict,
  coerceError,
  isGuidError,
  isVerqError,
  seededRng,
  systemClock,
} from "../src/index.ts";

describe("verq errors", () => {
  it("a VerqError keeps its code, message and cause, and is named after its class", () => {
    const cause = new Error("below");
    const error = new VerqError("VERQ_INVALID_ID", "the id must be printable", { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: "VERQ_INVALID_ID", message: "the id must be printable", name: "VerqError", cause });
    expect(new Retryable().name).toBe("Retryable");
    expect(new VersionConflict("job", "a", 1).name).toBe("VersionConflict");
  });

  it("isVerqError refuses what is not an object, and anything without the brand", () => {
    for (const value of [null, undefined, "VERQ_RETRYABLE", 42, { code: "VERQ_RETRYABLE" }, new Error("x")]) {
      expect(isVerqError(value)).toBe(false);
    }
    const branded = { code: "VERQ_RETRYABLE", [Symbol.for("verq.error")]: "yes" };
    expect(isVerqError(branded)).toBe(false);
    expect(isVerqError(new Retryable())).toBe(true);
    expect(isVerqError(new Retryable(), "VERQ_RETRYABLE")).toBe(true);
    expect(isVerqError(new Retryable(), "VERQ_PERMANENT")).toBe(false);
  });

  it("Retryable and Permanent say what happens to the job, and take a message and a cause", () => {
    expect(new Retryable().message).toBe("temporary failure: the job will be retried within its budget");
    expect(new Permanent().message).toBe("permanent failure: the job is quarantined as dead(permanent)");
    const cause = new Error("503");
    expect(new Retryable("busy", { cause })).toMatchObject({ code: "VERQ_RETRYABLE", message: "busy", cause });
    expect(new Permanent("gone", { cause })).toMatchObject({ code: "VERQ_PERMANENT", message: "gone", cause });
  });

  it("BadAck names the type of what the sender returned, never its value", () => {
    expect(new BadAck(null)).toMatchObject({
      receivedType: "null",
      message: "sender returned null, not exactly true; the job stays leased until its lease expires",
    });
    expect(new BadAck(undefined)).toMatchObject({
      receivedType: "undefined",
      message: expect.stringMatching(/^sender returned undefined, /) as string,
    });
    expect(new BadAck("true")).toMatchObject({
      receivedType: "string",
      message: expect.stringMatching(/^sender returned a string, /) as string,
    });
    expect(new BadAck({ ok: true })).toMatchObject({
      receivedType: "object",
      message: expect.stringMatching(/^sender returned an object, /) as string,
    });
    expect(new BadAck(1n).message).toMatch(/^sender returned a bigint, /);
  });

  it("VersionConflict names the stream and the version it expected", () => {
    const conflict = new VersionConflict("job", "order-1", 3);
    expect(conflict).toMatchObject({
      code: "VERQ_VERSION_CONFLICT",
      message: "stream job/order-1 moved past version 3; reload and decide again",
    });
    expect(isVerqError(conflict, "VERQ_VERSION_CONFLICT")).toBe(true);
  });

  it("coerceError names only the type of a thrown non-error, and keeps it as the cause", () => {
    const secret = { card: "4111" };
    const error = coerceError(secret);
    expect(error).toMatchObject({ code: "VERQ_UNEXPECTED", message: "non-error value thrown: object", cause: secret });
    expect(coerceError(7).message).toBe("non-error value thrown: number");
    const plain = new TypeError("x");
    expect(coerceError(plain)).toBe(plain);
  });

  it("GuidError and MessageError are verq errors with their own codes", () => {
    const cause = new Error("disk");
    const guid = new GuidError("VERQ_UNKNOWN_GUID", "no entry for this GUID", { cause });
    expect(guid).toMatchObject({ code: "VERQ_UNKNOWN_GUID", message: "no entry for this GUID", name: "GuidError", cause });
    expect(isVerqError(guid)).toBe(true);
    expect(isGuidError(guid, "VERQ_UNKNOWN_GUID")).toBe(true);
    expect(isGuidError(guid, "VERQ_INVALID_GUID")).toBe(false);
    expect(isGuidError({ code: "VERQ_UNKNOWN_GUID" }, "VERQ_UNKNOWN_GUID")).toBe(false);
    const message = new MessageError("VERQ_FILE_EXISTS", "the destination holds a file of that name", { cause });
    expect(message).toMatchObject({ code: "VERQ_FILE_EXISTS", name: "MessageError", cause });
    expect(isVerqError(message, "VERQ_FILE_EXISTS")).toBe(true);
  });
});

describe("clocks", () => {
  it("the system clock reads the wall clock", () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it("a manual clock starts where told (by default at 1_700_000_000_000) and moves only forward", () => {
    expect(new ManualClock().now()).toBe(1_700_000_000_000);
    const clock = new ManualClock(1_000);
    expect(clock.now()).toBe(1_000);
    expect(clock.advance(0)).toBe(1_000);
    expect(clock.advance(250)).toBe(1_250);
    expect(clock.now()).toBe(1_250);
    expect(clock.set(1_250)).toBe(1_250);
    expect(clock.set(2_000)).toBe(2_000);
    expect(clock.now()).toBe(2_000);
    for (const move of [() => clock.advance(-1), () => clock.advance(Number.NaN), () => clock.advance(Infinity)]) {
      expect(move).toThrow(new RangeError("a manual clock only moves forward"));
    }
    for (const move of [() => clock.set(1_999), () => clock.set(Number.NaN), () => clock.set(Infinity)]) {
      expect(move).toThrow(new RangeError("a manual clock only moves forward"));
    }
    expect(clock.now()).toBe(2_000);
  });
});

describe("seededRng", () => {
  it("is mulberry32: the reference sequence for seed 1, every value in [0, 1)", () => {
    const rng = seededRng(1);
    const values = Array.from({ length: 3 }, () => rng());
    // mulberry32(1), as published with the algorithm (t += 0x6D2B79F5; …) / 2^32.
    expect(values).toEqual([0.6270739405881613, 0.002735721180215478, 0.5274470399599522]);
    const many = seededRng(99);
    for (let i = 0; i < 1_000; i++) {
      const v = many();
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(1);
    }
  });

  it("takes the seed as an unsigned 32-bit number", () => {
    const a = seededRng(-1);
    const b = seededRng(2 ** 32 - 1);
    expect([a(), a()]).toEqual([b(), b()]);
    expect(seededRng(2)()).not.toBe(seededRng(1)());
  });
});
