import { DEFAULT_TIME_LIMIT_MS, readInteger, type FreshSearch } from "./fc-config.ts";
import type { PropertyEngine } from "./checked-property.ts";

/**
 * How long the fresh search of a property's test runs, per engine, when `FC_FRESH_MS` is not
 * set: a few seconds, fewer on PostgreSQL (about one run a second there) and on the tables (a
 * thousand runs take well under a second), so that the fresh searches of all the properties on
 * both engines add well under 90 s to CI.
 */
export const FRESH_BOX_MS: Readonly<Record<"sqlite" | "postgres" | "none", number>> = {
  sqlite: 4_000,
  postgres: 3_000,
  none: 1_000,
};

/**
 * The fresh search a property's test makes on `engine`: boxed at `FC_FRESH_MS` (else
 * {@link FRESH_BOX_MS}), its failure shrunk until `FC_TIME_LIMIT_MS` ({@link DEFAULT_TIME_LIMIT_MS} by default) after the
 * start. Null when `FC_FRESH_MS` is 0: no fresh search.
 */
export function freshSearch(engine: PropertyEngine): FreshSearch | null {
  const boxMs = readInteger("FC_FRESH_MS") ?? FRESH_BOX_MS[engine ?? "none"];
  if (boxMs < 0) throw new RangeError("FC_FRESH_MS must not be negative");
  if (boxMs === 0) return null;
  return { boxMs, shrinkLimitMs: readInteger("FC_TIME_LIMIT_MS") ?? DEFAULT_TIME_LIMIT_MS };
}
