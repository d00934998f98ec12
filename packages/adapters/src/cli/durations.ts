import { VerqError } from "@verq/core";

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses a CLI duration: a whole number and a unit, `ms`, `s`, `m`, `h` or `d`
 * (`500ms`, `30s`, `10m`, `2h`, `7d`). Throws `VERQ_INVALID_ARGUMENT` for anything else.
 */
export function parseDuration(text: string, what = "a duration"): number {
  const match = /^(\d{1,12})(ms|s|m|h|d)$/.exec(text.trim());
  const unit = match?.[2];
  if (match === null || unit === undefined) {
    throw new VerqError("VERQ_INVALID_ARGUMENT", `${what} must look like 500ms, 30s, 10m, 2h or 7d; got ${JSON.stringify(text.slice(0, 40))}`);
  }
  const value = Number(match[1]) * (UNITS[unit] ?? 1);
  if (!Number.isSafeInteger(value)) throw new VerqError("VERQ_INVALID_ARGUMENT", `${what} is too long`);
  return value;
}
