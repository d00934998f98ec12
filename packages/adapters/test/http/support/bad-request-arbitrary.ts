import fc from "fast-check";
import { partsToBytes, type Part, type RawRequest } from "./raw-case.ts";
import type { EdgeTarget } from "./edge-targets.ts";

const MEDIA_TYPES = [
  "application/json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "application/octet-stream",
  "multipart/form-data; boundary=x",
  "application/jsonp",
  "application/problem+json",
  "text/json",
  "*/*",
  "",
  "json",
  ";;;",
];
const PARAMS = ["", "; charset=utf-8", "; charset=latin1", '; charset="UTF-8"', ";;", "; a=b; c", " ;x=y", "; charset=utf-16"];
const CASES: readonly ((s: string) => string)[] = [
  (s) => s,
  (s) => s.toUpperCase(),
  (s) => s.replace(/(^|\/)./g, (m) => m.toUpperCase()),
];

/** A Content-Type value: a media type in any case with odd parameters. */
const contentType = fc
  .tuple(fc.constantFrom(...MEDIA_TYPES), fc.constantFrom(...CASES), fc.constantFrom(...PARAMS))
  .map(([type, caseOf, params]) => caseOf(type) + params);

/** Bytes that are never UTF-8: a lone continuation byte, a truncated sequence, an overlong form, a surrogate, 0xFF. */
const INVALID_UTF8 = ["gA==", "ww==", "wK8=", "7aCA", "/w==", "8IKCrA=="];

/** A request body for `target`: random JSON, a valid request, random bytes, bad UTF-8, deep nesting or over the limit. */
function body(target: EdgeTarget): fc.Arbitrary<Part[]> {
  const valid =
    target.name === "relay"
      ? fc.record({ guid: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,20}$/), amount: fc.nat(1_000) })
      : fc.record({ quantity: fc.integer({ min: 1, max: 1_000 }) });
  return fc.oneof(
    fc.jsonValue({ maxDepth: 4 }).map((v) => [JSON.stringify(v) ?? "null"]),
    valid.map((v) => [JSON.stringify(v)]),
    fc.uint8Array({ maxLength: 200 }).map((bytes) => [{ base64: Buffer.from(bytes).toString("base64") }]),
    fc
      .tuple(fc.constantFrom(...INVALID_UTF8), valid)
      .map(([bad, v]) => ['{"note":"', { base64: bad }, '",', JSON.stringify(v).slice(1)]),
    fc
      .integer({ min: 1_000, max: 20_000 })
      .map((depth) => ['{"guid":"DEEP","a":', { repeat: "[", times: depth }, { repeat: "]", times: depth }, "}"]),
    fc
      .integer({ min: 1, max: 4_096 })
      .map((over) => ['{"guid":"HUGE","quantity":1,"pad":"', { repeat: "x", times: target.bodyLimit + over }, '"}']),
    fc.constant<Part[]>([]),
  );
}

/**
 * Requests to `target` that are malformed in one or several ways at once: method, path,
 * content types (none, one, two; any case, odd parameters), body, a repeated Idempotency-Key,
 * a Content-Length that does not match, a client that stops half-way.
 */
export function badRequest(target: EdgeTarget): fc.Arbitrary<RawRequest> {
  const { defaults } = target;
  return fc
    .record({
      method: fc.constantFrom(defaults.method, defaults.method, "GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND"),
      path: fc.oneof(
        fc.constant(defaults.path),
        fc.constant(`${defaults.path}?x=1&x=2`),
        fc.webPath({ size: "small" }).map((p) => (p === "" ? "/" : p)),
        fc.constantFrom("/%zz", "//", "/..%2f..%2fetc%2fpasswd", "/transfer/", "/metrics/x", "/jobs/%00", "/ledger/%E0%A4%A"),
      ),
      contentTypes: fc.array(contentType, { maxLength: 2 }),
      key: fc.oneof(fc.uuid(), fc.constantFrom("", "a\tb", "x".repeat(300), "\u00e9t\u00e9")),
      repeatKey: fc.boolean(),
      body: body(target),
      lengthDelta: fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: -5, max: 50 })),
      send: fc.constantFrom("whole", "whole", "whole", "cut-and-end", "cut-and-close"),
    })
    .map((r): RawRequest => {
      const headers: [string, Part][] = r.contentTypes.map((type) => ["Content-Type", type]);
      if (target.name === "receiver") {
        headers.push(["Idempotency-Key", r.key]);
        if (r.repeatKey) headers.push(["Idempotency-Key", `${r.key}-again`]);
      }
      const length = partsToBytes(r.body).length;
      return {
        method: r.method,
        path: r.path,
        headers,
        edgeHeaders: false,
        body: r.body,
        ...(r.lengthDelta === 0 ? {} : { contentLength: Math.max(0, length + r.lengthDelta) }),
        send: r.send,
      };
    });
}
