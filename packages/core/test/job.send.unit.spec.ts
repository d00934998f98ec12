import { describe, expect, it } from "vitest";
import {
  BadAck,
  Permanent,
  Retryable,
  VerqError,
  describeFailure,
  isJobFailure,
  sendVerdict,
  type FailureClassifier,
} from "../src/index.ts";

class FetchError extends Error {
  constructor(
    readonly code: string,
    readonly status?: number,
  ) {
    super(`request to https://example.test/users/ann@example.test failed, reason: ${code}`);
  }
}

describe("what a send means (SPEC J5)", () => {
  it("a return of exactly true is ok, with no failure", () => {
    expect(sendVerdict({ returned: true })).toEqual({ outcome: "ok", failure: null });
  });

  it("any other return value is a BadAck to propagate, naming only its type", () => {
    for (const [value, type] of [
      [false, "boolean"],
      ["true", "string"],
      [1, "number"],
      [undefined, "undefined"],
      [null, "null"],
      [{ ok: true }, "object"],
    ] as const) {
      const verdict = sendVerdict({ returned: value });
      if (!("error" in verdict)) throw new Error(`a ${type} was taken as an outcome`);
      expect(verdict.error).toBeInstanceOf(BadAck);
      expect((verdict.error as BadAck).receivedType).toBe(type);
      expect(verdict.failure).toEqual({ category: "bad-ack", errorClass: "BadAck", code: "VERQ_BAD_ACK", status: null });
    }
  });

  it("a thrown Retryable is retry and a thrown Permanent is permanent, by their codes", () => {
    expect(sendVerdict({ threw: new Retryable() })).toEqual({
      outcome: "retry",
      failure: { category: "retryable", errorClass: "Retryable", code: "VERQ_RETRYABLE", status: null },
    });
    expect(sendVerdict({ threw: new Permanent() })).toMatchObject({ outcome: "permanent", failure: { category: "permanent" } });
    expect(sendVerdict({ threw: new VerqError("VERQ_RETRYABLE", "from another realm") })).toMatchObject({ outcome: "retry" });
    expect(sendVerdict({ threw: new VerqError("VERQ_PERMANENT", "from another realm") })).toMatchObject({
      outcome: "permanent",
    });
  });

  it("a Retryable or Permanent that wraps its cause records the cause's class, code and status", () => {
    const verdict = sendVerdict({ threw: new Retryable("upstream 503", { cause: new FetchError("EUPSTREAM", 503) }) });
    expect(verdict).toEqual({
      outcome: "retry",
      failure: { category: "retryable", errorClass: "FetchError", code: "EUPSTREAM", status: 503 },
    });
  });

  it("any other thrown value propagates as it is, described: the job stays leased", () => {
    const plain = new TypeError("cannot read properties of undefined (reading 'email')");
    const bad = new BadAck("yes");
    const other = new VerqError("VERQ_STORE_BUSY", "busy");
    for (const thrown of [plain, bad, other, "a string", undefined]) {
      const verdict = sendVerdict({ threw: thrown });
      expect(verdict).toEqual({ error: thrown, failure: expect.anything() as unknown });
      expect("outcome" in verdict).toBe(false);
    }
    expect(sendVerdict({ threw: plain }).failure).toEqual({
      category: "unexpected",
      errorClass: "TypeError",
      code: null,
      status: null,
    });
    expect(sendVerdict({ threw: bad }).failure?.category).toBe("bad-ack");
    expect(sendVerdict({ threw: "a string" }).failure).toEqual({
      category: "unexpected",
      errorClass: "string",
      code: null,
      status: null,
    });
  });

  it("a declared classifier turns the errors it knows into retry or permanent, and leaves the rest to J5", () => {
    const classify: FailureClassifier = (error) =>
      error instanceof FetchError && error.code === "ECONNREFUSED"
        ? "retry"
        : error instanceof RangeError
          ? "permanent"
          : undefined;
    expect(sendVerdict({ threw: new FetchError("ECONNREFUSED") }, classify)).toEqual({
      outcome: "retry",
      failure: { category: "retryable", errorClass: "FetchError", code: "ECONNREFUSED", status: null },
    });
    expect(sendVerdict({ threw: new RangeError("x") }, classify)).toMatchObject({
      outcome: "permanent",
      failure: { category: "permanent", errorClass: "RangeError" },
    });
    const unknown = new FetchError("ETIMEDOUT");
    expect(sendVerdict({ threw: unknown }, classify)).toEqual({
      error: unknown,
      failure: { category: "unexpected", errorClass: "FetchError", code: "ETIMEDOUT", status: null },
    });
  });

  it("a classifier never overrides a BadAck, and one that throws or answers nonsense says nothing", () => {
    expect(sendVerdict({ returned: "ok" }, () => "retry")).toMatchObject({ failure: { category: "bad-ack" } });
    const error = new Error("boom");
    const throwing: FailureClassifier = () => {
      throw new Error("classifier bug");
    };
    expect(sendVerdict({ threw: error }, throwing)).toMatchObject({ error, failure: { category: "unexpected" } });
    expect(sendVerdict({ threw: error }, () => "yes" as never)).toMatchObject({ error });
    expect(sendVerdict({ threw: new BadAck(1) }, () => "retry")).toMatchObject({ failure: { category: "bad-ack" } });
  });
});

describe("describeFailure: identifiers only, never text (SPEC J7)", () => {
  it("keeps the class, a code that is an identifier and an HTTP status, and never the message", () => {
    const error = Object.assign(new Error("user ann@example.test not found"), { code: "E_NOT_FOUND", statusCode: 404 });
    const failure = describeFailure(error, "unexpected");
    expect(failure).toEqual({ category: "unexpected", errorClass: "Error", code: "E_NOT_FOUND", status: 404 });
    expect(JSON.stringify(failure)).not.toContain("ann@");
  });

  it("drops a code or class that is free text, and a status out of range", () => {
    const error = Object.assign(new Error("x"), { code: "mail to ann@example.test", status: 42 });
    expect(describeFailure(error, "unexpected")).toEqual({
      category: "unexpected",
      errorClass: "Error",
      code: null,
      status: null,
    });
    expect(describeFailure({ response: { status: 502 } }, "retryable")).toEqual({
      category: "retryable",
      errorClass: "Object",
      code: null,
      status: 502,
    });
    expect(describeFailure({ name: "AbortError" }, "unexpected").errorClass).toBe("AbortError");
    expect(describeFailure(null, "unexpected").errorClass).toBe("null");
    expect(describeFailure(42, "unexpected").errorClass).toBe("number");
  });

  it("survives a thrown object whose getters throw", () => {
    const hostile = {
      get code(): string {
        throw new Error("no");
      },
    };
    expect(describeFailure(hostile, "unexpected")).toEqual({
      category: "unexpected",
      errorClass: "Object",
      code: null,
      status: null,
    });
  });
});

describe("isJobFailure: the shape a stored or reported failure must have", () => {
  const good = { category: "unexpected", errorClass: "TypeError", code: null, status: null };

  it("accepts a description, with a code and a status or without", () => {
    expect(isJobFailure(good)).toBe(true);
    expect(isJobFailure({ ...good, category: "bad-ack", code: "VERQ_BAD_ACK", status: 599 })).toBe(true);
    expect(isJobFailure({ ...good, category: "retryable", status: 100 })).toBe(true);
  });

  it("refuses anything else, field by field", () => {
    for (const bad of [
      null,
      undefined,
      "unexpected",
      42,
      {},
      { ...good, category: "crashed" },
      { ...good, category: undefined },
      { ...good, errorClass: 7 },
      { ...good, errorClass: undefined },
      { ...good, code: 42 },
      { ...good, code: undefined },
      { ...good, status: 99 },
      { ...good, status: 600 },
      { ...good, status: "503" },
      { ...good, status: undefined },
    ]) {
      expect([bad, isJobFailure(bad)]).toEqual([bad, false]);
    }
  });
});

describe("describeFailure at its edges", () => {
  it("keeps an HTTP status from 100 to 599 only, and only a whole number", () => {
    const status = (value: unknown) => describeFailure({ status: value }, "unexpected").status;
    expect([status(100), status(599), status(99), status(600), status(502.5), status("502")]).toEqual([
      100,
      599,
      null,
      null,
      null,
      null,
    ]);
  });

  it("names an object without a prototype by its name, and a plain object with a name by that name", () => {
    const bare = Object.assign(Object.create(null) as object, { name: "AbortError" });
    expect(describeFailure(bare, "unexpected").errorClass).toBe("AbortError");
    expect(describeFailure({ name: "AbortError" }, "unexpected").errorClass).toBe("AbortError");
    expect(describeFailure({}, "unexpected").errorClass).toBe("Object");
    expect(describeFailure(Object.create(null), "unexpected").errorClass).toBe("Object");
  });

  it("describes an unexpected verq error by itself, not by its cause; a Retryable or Permanent by the cause it wraps", () => {
    const busy = new VerqError("VERQ_STORE_BUSY", "busy", { cause: new TypeError("inner") });
    expect(describeFailure(busy, "unexpected")).toMatchObject({ errorClass: "VerqError", code: "VERQ_STORE_BUSY" });
    expect(describeFailure(new Retryable("x", { cause: new RangeError("inner") }), "retryable").errorClass).toBe("RangeError");
    expect(describeFailure(new Retryable("x"), "retryable").errorClass).toBe("Retryable");
  });
});
