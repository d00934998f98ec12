import { VerqError } from "./errors.ts";
import { describeKind } from "./type-name.ts";

/** A value that survives `JSON.stringify` → `JSON.parse` unchanged. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * The deepest nesting of arrays and objects a payload or request may have: a value inside
 * `MAX_JSON_DEPTH` containers is accepted, one more is refused. Far beyond any real document,
 * and well within what every stack the value is walked on (this serialiser, the engines' JSON
 * functions: SQLite's limit is 1,000) can take, so that a deep value gets the same clear refusal
 * everywhere instead of a stack overflow that depends on where it was walked.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * Serialises a JSON value with object keys sorted, so that two equal payloads always give the
 * same text (the basis of idempotent enqueue). Throws `VERQ_INVALID_PAYLOAD` for anything that
 * would not survive a JSON round trip unchanged: `undefined`, functions, symbols, bigints,
 * `NaN` and infinities, class instances (`Date`, `Map`, …), sparse arrays and cycles; and for
 * nesting deeper than {@link MAX_JSON_DEPTH}.
 */
export function canonicalJson(value: unknown, what = "payload"): string {
  return writeCanonical(value, { what, seen: new Set<object>(), path: [] });
}

/** What one {@link canonicalJson} call carries down: the path is kept as parts and joined only for an error. */
interface CanonicalWalk {
  readonly what: string;
  readonly seen: Set<object>;
  readonly path: (string | number)[];
}

function writeCanonical(v: unknown, walk: CanonicalWalk): string {
  if (v === null) return "null";
  switch (typeof v) {
    case "boolean":
      return v ? "true" : "false";
    case "string":
      return JSON.stringify(v);
    case "number":
      if (!Number.isFinite(v)) throw invalid(walk, "a non-finite number");
      return JSON.stringify(v);
    case "object":
      break;
    default:
      throw invalid(walk, describeKind(v));
  }
  const obj = v;
  if (walk.seen.has(obj)) throw invalid(walk, "a cycle");
  if (walk.seen.size === MAX_JSON_DEPTH) throw tooDeep(walk);
  walk.seen.add(obj);
  try {
    let text: string;
    if (Array.isArray(obj)) {
      text = "[";
      for (let i = 0; i < obj.length; i++) {
        walk.path.push(i);
        if (!(i in obj)) throw invalid(walk, "a hole in an array");
        text += (i === 0 ? "" : ",") + writeCanonical(obj[i], walk);
        walk.path.pop();
      }
      return text + "]";
    }
    const proto: unknown = Object.getPrototypeOf(obj);
    if (proto !== Object.prototype && proto !== null) throw invalid(walk, "a class instance");
    const record = obj as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    text = "{";
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      walk.path.push(key);
      text += `${i === 0 ? "" : ","}${JSON.stringify(key)}:${writeCanonical(record[key], walk)}`;
      walk.path.pop();
    }
    return text + "}";
  } finally {
    walk.seen.delete(obj);
  }
}

function invalid(walk: CanonicalWalk, found: string): VerqError {
  const path = walk.path.map((part) => (typeof part === "number" ? `[${part}]` : `.${part}`)).join("");
  return new VerqError("VERQ_INVALID_PAYLOAD", `the ${walk.what} must be plain JSON; found ${found} at $${path}`);
}

function tooDeep(walk: CanonicalWalk): VerqError {
  // The path of a value this deep says nothing useful: its first steps locate it.
  const start = walk.path
    .slice(0, 8)
    .map((part) => (typeof part === "number" ? `[${part}]` : `.${part}`))
    .join("");
  return new VerqError(
    "VERQ_INVALID_PAYLOAD",
    `the ${walk.what} must be plain JSON nested at most ${MAX_JSON_DEPTH} deep; found deeper nesting under $${start}…`,
  );
}
