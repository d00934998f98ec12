/**
 * What a value is, in words for a message: `undefined`, `null`, `an array`, `an object`,
 * `a string`, `a bigint`, … (the article agrees with the word, and `undefined` and `null` take
 * none). Only the kind, never the value, which may be a payload.
 */
export function describeKind(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  const type = typeof value;
  return `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
}
