import { defineConfig } from "vitest/config";
import base from "../vitest.config.ts";

/**
 * The tests of the mutation run (pnpm mutation): core's unit tests and the store's fast tests of
 * its decision code. Each surviving mutant re-runs the tests that cover it, so slow ones are left
 * out: the whole TypeScript program of machine-source-types (its module is checked by
 * machine-source.unit.spec.ts too) and the store's int suites, which cover this code many times
 * over on both engines and take minutes.
 */
// The full run's split into a steady and a timed project does not apply: one set, as Stryker runs it.
const { projects: _projects, ...shared } = base.test ?? {};

export default defineConfig({
  ...base,
  test: {
    ...shared,
    include: [
      "packages/core/test/**/*.unit.spec.ts",
      "packages/store/test/group-commit.unit.spec.ts",
      "packages/store/test/retry-when-busy.unit.spec.ts",
      "packages/store/test/command-path.int.spec.ts",
    ],
    exclude: ["packages/core/test/machine-source-types.unit.spec.ts"],
    // No test of this set starts the CLI: the bundle of the full run's global setup is not needed.
    globalSetup: [],
  },
});
