import { isDeepStrictEqual } from "node:util";

/**
 * Throws a property violation. Messages start with the property's tag (`[J4 b] …`) so that a
 * counterexample names the rule it broke, and the mutant suite can assert which rule caught it.
 */
export function modelFail(property: string, message: string): never {
  throw new Error(`[${property}] ${message}`);
}

/** Fails `property` unless `actual` deep-equals `expected`; the message lists the differing fields. */
export function modelEqual<T>(property: string, what: string, actual: T, expected: T): void {
  if (isDeepStrictEqual(actual, expected)) return;
  modelFail(property, `${what}: ${describeDifference(actual, expected)}`);
}

function describeDifference(actual: unknown, expected: unknown): string {
  if (!isRecord(actual) || !isRecord(expected)) {
    return `expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
  }
  const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
  return keys
    .filter((k) => !isDeepStrictEqual(actual[k], expected[k]))
    .map((k) => `${k} expected ${JSON.stringify(expected[k])}, got ${JSON.stringify(actual[k])}`)
    .join("; ");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
