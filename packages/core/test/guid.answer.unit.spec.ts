import { describe, expect, it } from "vitest";
import {
  classifyCoreCall,
  classifyInquiry,
  fingerprintRequest,
  isDefiniteCode,
  isValidGuid,
  readChannelRequest,
  relayAnswer,
} from "../src/index.ts";

describe("reading channel requests and core answers", () => {
  it("G3: definite codes are 0000, B2 + two digits, and E500; the relay's own codes are not", () => {
    for (const code of ["0000", "B200", "B201", "B299", "E500"]) expect(isDefiniteCode(code), code).toBe(true);
    for (const code of ["E901", "E902", "E903", "E422", "B2", "B2xx", "B300", "0001", "", 0, null])
      expect(isDefiniteCode(code), String(code)).toBe(false);
  });

  it("a channel request is a JSON object with a valid guid; its fingerprint ignores key order and whitespace", () => {
    const a = readChannelRequest('{"guid":"T-1","amount":700}');
    const b = readChannelRequest('{ "amount": 700,\n  "guid": "T-1" }');
    expect(a.ok && b.ok && a.fingerprint === b.fingerprint).toBe(true);
    const c = readChannelRequest('{"guid":"T-1","amount":701}');
    expect(a.ok && c.ok && a.fingerprint !== c.fingerprint).toBe(true);
    expect(a.ok && a.request).toBe('{"guid":"T-1","amount":700}');
    expect(fingerprintRequest({ b: 1, a: [1, { y: 2, x: 1 }] })).toBe(fingerprintRequest({ a: [1, { x: 1, y: 2 }], b: 1 }));
  });

  it.each([
    ["{bad", "invalid-json"],
    ["", "invalid-json"],
    ['{"guid":"T-1","amount":1e999}', "invalid-json"],
    [`{"guid":"T-1","a":${"[".repeat(256)}${"]".repeat(256)}}`, "invalid-json"],
    ["[1,2]", "not-an-object"],
    ['"T-1"', "not-an-object"],
    ["null", "not-an-object"],
    ['{"amount":1}', "missing-guid"],
    ['{"guid":"","amount":1}', "missing-guid"],
    ['{"guid":7}', "invalid-guid"],
    ['{"guid":"a b"}', "invalid-guid"],
    ['{"guid":"../x"}', "invalid-guid"],
    [`{"guid":"${"x".repeat(129)}"}`, "invalid-guid"],
  ])("refuses %j as %s", (text, problem) => {
    expect(readChannelRequest(text)).toEqual({ ok: false, problem });
  });

  it("GUIDs: 1-128 ASCII letters, digits, . _ : -, starting with a letter or digit (UUIDs fit)", () => {
    for (const guid of ["a", "T-1001", "0f8fad5b-d9cb-469f-a165-70867728950e", "x".repeat(128), "A.b_c:d-e"])
      expect(isValidGuid(guid), guid).toBe(true);
    for (const guid of ["", "-a", "a b", "a/b", "ä", "x".repeat(129), "a\n"]) expect(isValidGuid(guid), guid).toBe(false);
  });

  it("a core answer is valid only with HTTP 200, the same GUID and a definite code; otherwise UNKNOWN", () => {
    const body = '{"guid":"T-1","code":"0000","seq":3}';
    expect(classifyCoreCall("T-1", { kind: "answered", status: 200, body })).toEqual({
      kind: "answered",
      code: "0000",
      response: body,
    });
    for (const [status, text] of [
      [200, '{"guid":"T-2","code":"0000"}'],
      [200, '{"guid":"T-1","code":"E901"}'],
      [200, '{"guid":"T-1"}'],
      [200, "OK"],
      [200, "[]"],
      [500, body],
      [201, body],
    ] as const) {
      expect(classifyCoreCall("T-1", { kind: "answered", status, body: text }), `${status} ${text}`).toEqual({
        kind: "invalid-answer",
      });
    }
    expect(classifyCoreCall("T-1", { kind: "answered", status: 200, body: null })).toEqual({ kind: "invalid-answer" });
    expect(classifyCoreCall("T-1", { kind: "no-answer", reason: "TimeoutError" })).toEqual({ kind: "no-answer" });
    expect(classifyCoreCall("T-1", { kind: "not-sent", reason: "ECONNREFUSED" })).toEqual({ kind: "not-sent" });
  });

  it("G5: an inquiry 404 means not found only when its body names the GUID; anything else unclear is an inquiry error", () => {
    expect(classifyInquiry("T-1", { kind: "answered", status: 404, body: '{"guid":"T-1","code":"NOT_FOUND"}' })).toEqual({
      kind: "not-found",
    });
    expect(classifyInquiry("T-1", { kind: "answered", status: 404, body: "Not Found" })).toBeNull();
    expect(classifyInquiry("T-1", { kind: "answered", status: 404, body: '{"guid":"T-2"}' })).toBeNull();
    expect(classifyInquiry("T-1", { kind: "answered", status: 503, body: "" })).toBeNull();
    expect(classifyInquiry("T-1", { kind: "failed", reason: "ECONNREFUSED" })).toBeNull();
    const body = '{"guid":"T-1","code":"B201"}';
    expect(classifyInquiry("T-1", { kind: "answered", status: 200, body })).toEqual({
      kind: "found",
      code: "B201",
      response: body,
    });
  });

  it("the relay's own answers are {guid, code}", () => {
    expect(relayAnswer("T-1", "E903")).toBe('{"guid":"T-1","code":"E903"}');
  });
});
