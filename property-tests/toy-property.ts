import fc from "fast-check";
import type { CheckedProperty } from "./checked-property.ts";
import { fcConfig, searchDefaults } from "./fc-config.ts";
import { assertProperty } from "./property-failure.ts";

/**
 * A property without a store for the tests of the search harness itself: every integer is at
 * most `limit` (so it fails, and shrinks to `limit + 1`, whenever a run draws a larger one).
 */
export function toyProperty(name: string, limit: number): CheckedProperty {
  return {
    name,
    suite: "toy",
    engines: [null],
    run: (_engine, search) =>
      assertProperty(
        fc.property(fc.integer({ min: 0, max: 1_000_000 }), (n) => {
          if (n > limit) throw new Error(`[toy] ${n} is over ${limit}\nsecond line`);
        }),
        fcConfig(name, searchDefaults(search, 100)),
      ),
  };
}
