import { describe, expect, it } from "vitest";
import {
  BadAck,
  Permanent,
  Retryable,
  MAX_JSON_DEPTH,
  REDRIVE_NOTE_MAX_LENGTH,
  VerqError,
  backoffDelay,
  canonicalJson,
  coerceError,
  isValidRedriveNote,
  isVerqError,
  seededRng,
} from "../src/index.ts";

describe("redrive note rule (J6)", () => {
  it.each(["OPS-1234", "INC#42", "JIRA:PAY-77", "gh/verq/issues/12", "a", "A".repeat(REDRIVE_NOTE_MAX_LENGTH)])(
    "accepts the ticket id %s",
    (note) => expect(isValidRedriveNote(note)).toBe(true),
  );
  it.each([
    ["empty", ""],
    ["a space", "fixed it"],
    ["non-ASCII", "Müller-1"],
    ["multi-line", "OPS-1\nDROP"],
    ["overlong", "A".repeat(REDRIVE_NOTE_MAX_LENGTH + 1)],
    ["leading punctuation", "-OPS"],
    ["an e-mail address", "jane@example.com"],
  ])("refuses %s", (_what, note) => expect(isValidRedriveNote(note)).toBe(false));
  it("refuses non-strings", () => {
    expect(isValidRedriveNote(42)).toBe(false);
    expect(isValidRedriveNote(undefined)).toBe(false);
  });
});

describe("canonicalJson", () => {
  it("sorts keys so equal payloads give equal text", () => {
    expect(canonicalJson({ b: 1, a: [1, { d: 2, c: 3 }] })).toBe(canonicalJson({ a: [1, { c: 3, d: 2 }], b: 1 }));
    expect(canonicalJson({ "10": 1, "2": 2 })).toBe('{"10":1,"2":2}');
  });
  it.each([
    ["undefined", { a: undefined }],
    ["a function", { f: () => 1 }],
    ["a bigint", { n: 1n }],
    ["NaN", { n: Number.NaN }],
    ["Infinity", [Number.POSITIVE_INFINITY]],
    ["a Date", { d: new Date(0) }],
    ["a Map", new Map()],
    ["a symbol", Symbol("s")],
  ])("rejects %s with VERQ_INVALID_PAYLOAD", (_what, value) => {
    expect(() => canonicalJson(value)).toThrow(expect.objectContaining({ code: "VERQ_INVALID_PAYLOAD" }));
  });
  it("names where the offending value is, and nothing of the payload's values", () => {
    expect(() => canonicalJson({ a: [1, { b: undefined }] })).toThrow("found undefined at $.a[1].b");
    expect(() => canonicalJson({ f: () => 1 })).toThrow("found a function at $.f");
    expect(() => canonicalJson({ n: 1n })).toThrow("found a bigint at $.n");
    expect(() => canonicalJson({ x: { y: [1, , 2] } })).toThrow("found a hole in an array at $.x.y[1]");
    expect(() => canonicalJson([Number.NaN])).toThrow("found a non-finite number at $[0]");
    expect(() => canonicalJson({ secret: "s3cr3t", d: new Date(0) })).toThrow(
      /^the payload must be plain JSON; found a class instance at \$\.d$/,
    );
  });
  it("rejects cycles but accepts shared references", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });

  /** `depth` containers around 0, alternating arrays and objects, built without recursion. */
  function nested(depth: number): unknown {
    let value: unknown = 0;
    for (let d = 0; d < depth; d++) value = d % 2 === 0 ? [value] : { k: value };
    return value;
  }

  it(`accepts nesting up to MAX_JSON_DEPTH (${MAX_JSON_DEPTH}) and refuses one level more with VERQ_INVALID_PAYLOAD`, () => {
    expect(canonicalJson(nested(MAX_JSON_DEPTH))).toBe(JSON.stringify(nested(MAX_JSON_DEPTH)));
    expect(() => canonicalJson({ a: nested(MAX_JSON_DEPTH - 1) })).not.toThrow();
    expect(() => canonicalJson({ a: nested(MAX_JSON_DEPTH) })).toThrow(expect.objectContaining({ code: "VERQ_INVALID_PAYLOAD" }));
    expect(() => canonicalJson({ a: nested(MAX_JSON_DEPTH) })).toThrow(`at most ${MAX_JSON_DEPTH} deep`);
    expect(() => canonicalJson(nested(MAX_JSON_DEPTH + 1), "request")).toThrow(
      "the request must be plain JSON nested at most 256 deep; found deeper nesting under $[0].k[0].k[0].k[0].k…",
    );
  });

  it("refuses a value nested far deeper than any stack with the same error, never a stack overflow", () => {
    const deep = JSON.parse(`${"[".repeat(100_000)}${"]".repeat(100_000)}`) as unknown;
    expect(() => canonicalJson(deep)).toThrow(expect.objectContaining({ code: "VERQ_INVALID_PAYLOAD" }));
  });
});

describe("backoff", () => {
  it("grows exponentially up to the cap, with jitter from the injected RNG", () => {
    const policy = { baseMs: 100, factor: 2, maxMs: 1_000, jitter: "none" as const };
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(policy, n, () => 0.5))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect(backoffDelay({ ...policy, jitter: "full" }, 3, () => 0.25)).toBe(100);
    expect(backoffDelay({ ...policy, jitter: "equal" }, 3, () => 0.5)).toBe(300);
  });
  it("is reproducible for a seed", () => {
    const a = seededRng(7);
    const b = seededRng(7);
    const policy = { baseMs: 100, factor: 2, maxMs: 10_000, jitter: "full" as const };
    expect([1, 2, 3].map((n) => backoffDelay(policy, n, a))).toEqual([1, 2, 3].map((n) => backoffDelay(policy, n, b)));
  });
});

describe("errors", () => {
  it("carry stable codes and are recognised without instanceof", () => {
    expect(new Retryable().code).toBe("VERQ_RETRYABLE");
    expect(new Permanent().code).toBe("VERQ_PERMANENT");
    const bad = new BadAck({ secret: "card 4111" });
    expect(bad.code).toBe("VERQ_BAD_ACK");
    expect(bad.message).not.toContain("4111");
    expect(isVerqError(bad)).toBe(true);
    expect(isVerqError(bad, "VERQ_BAD_ACK")).toBe(true);
    expect(isVerqError(bad, "VERQ_RETRYABLE")).toBe(false);
    expect(isVerqError(new Error("x"))).toBe(false);
    const copy: unknown = Object.assign(Object.create(null) as object, { ...bad, [Symbol.for("verq.error")]: true });
    expect(isVerqError(copy)).toBe(true);
  });
  it("coerceError wraps non-errors", () => {
    const e = coerceError("boom");
    expect(e).toBeInstanceOf(VerqError);
    expect((e as VerqError).code).toBe("VERQ_UNEXPECTED");
    const original = new Error("x");
    expect(coerceError(original)).toBe(original);
  });
});
