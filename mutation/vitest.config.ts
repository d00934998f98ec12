import { defineConfig } from "vitest/config";
import base from "../vitest.config.ts";

/**
 * The tests of the mutation run (pnpm mutation): core's unit tests and the store's fast tests of
 * its decision code. Each surviving mutant re-runs the tests that cover it, so slow ones are left
 * out: the whole TypeScript program of machine-source-types (its module is checked by
 * machine-source.unit.spec.ts too) and the store's int suites, which cover this code many times
 * over on both engines and take minutes.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      "packages/core/test/**/*.unit.spec.ts",
      "packages/store/test/group-commit.unit.spec.ts",
      "packages/store/test/retry-when-busy.unit.spec.ts",
      "packages/store/test/command-path.int.spec.ts",
    ],
    exclude: ["packages/core/test/machine-source-types.unit.spec.ts"],
  },
});
