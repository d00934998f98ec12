/** A claimed file's bytes as a JSON object, or why they are not one (reason `parse`). */
export type DecodeResult =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly reason: "parse"; readonly detail: string };

const BOM = [0xef, 0xbb, 0xbf] as const;
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Decodes a message file: UTF-8, one leading byte-order mark dropped (RFC 8259 lets a parser
 * ignore it, and Windows tools write one), then JSON that must be an object. Anything else is
 * reason `parse`: an empty or blank file, invalid UTF-8 (including UTF-16), a syntax error, or a
 * top-level array, string, number or null. The detail never quotes the file's contents.
 */
export function decodeMessage(bytes: Uint8Array): DecodeResult {
  const hasBom = bytes.length >= 3 && bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2];
  const body = hasBom ? bytes.subarray(3) : bytes;
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return { ok: false, reason: "parse", detail: "not valid UTF-8" };
  }
  if (text.trim() === "")
    return { ok: false, reason: "parse", detail: bytes.length === 0 ? "empty file" : "no JSON in the file" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec(error instanceof Error ? error.message : "")?.[1];
    return {
      ok: false,
      reason: "parse",
      detail: position === undefined ? "not valid JSON" : `not valid JSON (at character ${position})`,
    };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const found = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    return { ok: false, reason: "parse", detail: `not a JSON object (found ${found})` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}
