import { createHash } from "node:crypto";
import { canonicalJson } from "./json.ts";

/**
 * The fingerprint of a request: `sha256:` and the hex digest of its canonical JSON (keys
 * sorted, no insignificant whitespace). Two requests with the same content give the same
 * fingerprint however they are formatted; any change of a value changes it. Pure and
 * deterministic. Throws `VERQ_INVALID_PAYLOAD` for a value that is not plain JSON.
 *
 * @example fingerprintRequest({ guid: "g-1", amount: 700 }) === fingerprintRequest(JSON.parse('{ "amount":700, "guid":"g-1" }'))
 */
export function fingerprintRequest(body: unknown): string {
  return `sha256:${createHash("sha256").update(canonicalJson(body, "request")).digest("hex")}`;
}
