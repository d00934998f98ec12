import { defineConfig } from "vitest/config";

// Inside the workspace every package runs from its sources: the `verq-source` export condition
// points each `@verq/*` import at `src/*.ts` (vitest here, and through NODE_OPTIONS the child
// processes that tests start with tsx). Published packages carry only `dist/`.
const SOURCE_CONDITION = "--conditions=verq-source";
if (!(process.env.NODE_OPTIONS ?? "").includes(SOURCE_CONDITION)) {
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ""} ${SOURCE_CONDITION}`.trim();
}

export default defineConfig({
  resolve: { conditions: ["verq-source", "module", "node", "development|production"] },
  ssr: { resolve: { conditions: ["verq-source", "module", "node", "development|production"] } },
  test: {
    include: [
      "packages/*/test/**/*.spec.ts",
      "property-tests/**/*.spec.ts",
      "bench/test/**/*.spec.ts",
      "transitions/test/**/*.spec.ts",
      "examples/*/test/**/*.spec.ts",
      "packaging/*.spec.ts",
      "mutation/test/**/*.spec.ts",
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: ["default"],
  },
});
