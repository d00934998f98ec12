import { VerqError } from "@verq/core";

/** The kind of each key a cursor holds, in order. */
export type CursorKeyKinds = readonly ("text" | "number")[];

/** The longest cursor text accepted: a few keys, each at most an identifier long. */
const MAX_CURSOR_LENGTH = 4_096;

const invalidCursor = (): VerqError =>
  new VerqError("VERQ_INVALID_ARGUMENT", "the cursor is not one this listing gave: start again from the first page");

/**
 * A keyset cursor as URL-safe text: the listing it belongs to (`walk`) and the keys of the last
 * row of a page, as base64url JSON. It is opaque to its reader and carries no row's content but
 * those keys (ids, times, queue names).
 */
export function encodeCursor(walk: string, keys: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify([walk, ...keys]), "utf8").toString("base64url");
}

/**
 * The keys of `text`, a cursor {@link encodeCursor} made for `walk` with keys of `kinds`.
 * Anything else (another listing's cursor, text that was changed, keys of the wrong kind) is
 * `VERQ_INVALID_ARGUMENT`: a cursor is read back as input, never trusted.
 */
export function decodeCursor(text: unknown, walk: string, kinds: CursorKeyKinds): (string | number)[] {
  if (typeof text !== "string" || text.length === 0 || text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) {
    throw invalidCursor();
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(parsed) || parsed[0] !== walk || parsed.length !== kinds.length + 1) throw invalidCursor();
  const keys = parsed.slice(1) as unknown[];
  const fits = keys.every((key, i) =>
    kinds[i] === "number" ? typeof key === "number" && Number.isSafeInteger(key) : typeof key === "string" && key.length <= 256,
  );
  if (!fits) throw invalidCursor();
  return keys as (string | number)[];
}
