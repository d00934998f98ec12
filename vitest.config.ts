import { configDefaults, defineConfig } from "vitest/config";

// Inside the workspace every package runs from its sources: the `verq-source` export condition
// points each `@verq/*` import at `src/*.ts` (vitest here, and through NODE_OPTIONS the child
// processes that tests start with tsx). Published packages carry only `dist/`.
const SOURCE_CONDITION = "--conditions=verq-source";
if (!(process.env.NODE_OPTIONS ?? "").includes(SOURCE_CONDITION)) {
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ""} ${SOURCE_CONDITION}`.trim();
}

/** Every test file of the workspace. */
const TESTS = [
  "packages/*/test/**/*.spec.ts",
  "property-tests/**/*.spec.ts",
  "bench/test/**/*.spec.ts",
  "chaos/test/**/*.spec.ts",
  "transitions/test/**/*.spec.ts",
  "examples/*/test/**/*.spec.ts",
  "packaging/*.spec.ts",
  "mutation/test/**/*.spec.ts",
];

/**
 * The files that run alone, after all the others: their outcome depends on how fast time passes
 * for real processes (leases and heartbeats on the wall clock, crash and restart timings, a
 * paced redrive, soaks), or they measure speed (the benchmark's ratios). Everything else waits
 * on a condition, never on a duration, and runs two files at a time.
 */
export const TIMED_TESTS = [
  "bench/test/**/*.spec.ts",
  "chaos/test/**/*.spec.ts",
  "examples/orders-service/test/orders-service.e2e.spec.ts",
  "packages/adapters/test/files/crash-recovery.e2e.spec.ts",
  "packages/adapters/test/files/two-consumers.e2e.spec.ts",
  "packages/adapters/test/jobs/bulk-redrive.e2e.spec.ts",
  "packages/adapters/test/jobs/failover.e2e.spec.ts",
  "packages/adapters/test/jobs/j8-crash.e2e.spec.ts",
  "packages/adapters/test/jobs/kill-soak.e2e.spec.ts",
  "packages/adapters/test/relay/relay-kill-soak.e2e.spec.ts",
  "packages/adapters/test/relay/relay-restart.e2e.spec.ts",
  "packages/adapters/test/schedules/schedulers-processes.e2e.spec.ts",
  "packages/store/test/connection-loss-postgres.e2e.spec.ts",
  "packages/store/test/job-worker.int.spec.ts",
  "packages/store/test/multi-process-postgres.e2e.spec.ts",
  "packages/store/test/multi-process.e2e.spec.ts",
  "packages/store/test/postgres-restart.e2e.spec.ts",
  "packages/store/test/queue-limit-processes.e2e.spec.ts",
  "packages/store/test/write-lock-held.e2e.spec.ts",
  "packages/testing/test/ha-cluster.e2e.spec.ts",
];

export default defineConfig({
  resolve: { conditions: ["verq-source", "module", "node", "development|production"] },
  ssr: { resolve: { conditions: ["verq-source", "module", "node", "development|production"] } },
  test: {
    // Guards against a test that never ends, above the property searches' own limit (150 s): files
    // run two at a time, so a test may take several times what it takes alone.
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Bundles the `verq` bin once from the sources for the tests' child processes (VERQ_CLI_BUNDLE).
    globalSetup: ["packages/cli/test/support/cli-bundle.setup.ts"],
    reporters: ["default"],
    projects: [
      {
        extends: true,
        test: {
          name: "steady",
          include: TESTS,
          exclude: [...configDefaults.exclude, ...TIMED_TESTS],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: "timed", include: TIMED_TESTS, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
