import { describe, expect, it } from "vitest";
import { BadAck, Permanent, Retryable, VerqError, sendVerdict } from "../src/index.ts";

describe("what a send means (SPEC J5)", () => {
  it("a return of exactly true is ok", () => {
    expect(sendVerdict({ returned: true })).toEqual({ outcome: "ok" });
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
    }
  });

  it("a thrown Retryable is retry and a thrown Permanent is permanent, by their codes", () => {
    expect(sendVerdict({ threw: new Retryable() })).toEqual({ outcome: "retry" });
    expect(sendVerdict({ threw: new Permanent() })).toEqual({ outcome: "permanent" });
    expect(sendVerdict({ threw: new VerqError("VERQ_RETRYABLE", "from another realm") })).toEqual({ outcome: "retry" });
    expect(sendVerdict({ threw: new VerqError("VERQ_PERMANENT", "from another realm") })).toEqual({ outcome: "permanent" });
  });

  it("any other thrown value propagates as it is: the job stays leased", () => {
    const plain = new Error("socket hang up");
    const bad = new BadAck("yes");
    const other = new VerqError("VERQ_STORE_BUSY", "busy");
    for (const thrown of [plain, bad, other, "a string", undefined]) {
      const verdict = sendVerdict({ threw: thrown });
      expect(verdict).toEqual({ error: thrown });
      expect("outcome" in verdict).toBe(false);
    }
  });
});
