import { VerqError } from "./errors.ts";

/** A value that survives `JSON.stringify` → `JSON.parse` unchanged. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * Serialises a JSON value with object keys sorted, so that two equal payloads always give the
 * same text (the basis of idempotent enqueue). Throws `VERQ_INVALID_PAYLOAD` for anything that
 * would not survive a JSON round trip unchanged: `undefined`, functions, symbols, bigints,
 * `NaN` and infinities, class instances (`Date`, `Map`, …), sparse arrays and cycles.
 */
export function canonicalJson(value: unknown, what = "payload"): string {
  const seen = new Set<object>();
  const write = (v: unknown, path: string): string => {
    if (v === null) return "null";
    switch (typeof v) {
      case "boolean":
        return v ? "true" : "false";
      case "string":
        return JSON.stringify(v);
      case "number":
        if (!Number.isFinite(v)) throw invalid(what, path, "a non-finite number");
        return JSON.stringify(v);
      case "object":
        break;
      default:
        throw invalid(what, path, `a ${typeof v}`);
    }
    const obj = v;
    if (seen.has(obj)) throw invalid(what, path, "a cycle");
    seen.add(obj);
    try {
      if (Array.isArray(obj)) {
        const parts: string[] = [];
        for (let i = 0; i < obj.length; i++) {
          if (!(i in obj)) throw invalid(what, `${path}[${i}]`, "a hole in an array");
          parts.push(write(obj[i], `${path}[${i}]`));
        }
        return `[${parts.join(",")}]`;
      }
      const proto: unknown = Object.getPrototypeOf(obj);
      if (proto !== Object.prototype && proto !== null) throw invalid(what, path, "a class instance");
      const record = obj as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${write(record[k], `${path}.${k}`)}`).join(",")}}`;
    } finally {
      seen.delete(obj);
    }
  };
  return write(value, "$");
}

function invalid(what: string, path: string, found: string): VerqError {
  return new VerqError("VERQ_INVALID_PAYLOAD", `the ${what} must be plain JSON; found ${found} at ${path}`);
}
