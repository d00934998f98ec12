export { TestBank } from "./relay/test-bank.ts";
export { TestCore, type TestCoreOptions } from "./relay/test-core.ts";
export { COURSE_EXPECTED, COURSE_FIXTURE, writeFixture, type FixtureFile } from "./files/course-fixture.ts";
export {
  runVerq,
  spawnVerq,
  startReceiver,
  tempDir,
  verqCommand,
  type RunningReceiver,
  type VerqRun,
} from "./process/verq-process.ts";
export { startRelayProcess, type RelayProcess } from "./process/relay-process.ts";
export { runJobsDemo } from "./demo/jobs-demo.ts";
export { runRelayDemo } from "./demo/relay-demo.ts";
export { runFilesDemo } from "./demo/files-demo.ts";
export {
  ENGINES,
  TEST_POSTGRES_URL,
  admin,
  createTestDatabase,
  engineAvailable,
  postgresRequired,
  type Engine,
  type TestDatabase,
} from "./engines/test-database.ts";
export { holdWriteLock } from "./engines/hold-write-lock.ts";
export { startCuttingProxy, type Cut, type CutPoint, type CuttingProxy } from "./engines/cutting-proxy.ts";
export { privatePostgresAvailable, startPrivatePostgres, type PrivatePostgres } from "./engines/private-postgres.ts";
export { haClusterAvailable, startHaCluster, type HaCluster, type HaClusterOptions, type HaNode } from "./engines/ha-cluster.ts";
export { query as queryOnce, type HaMember } from "./engines/ha-cluster-probes.ts";
export { rawSql } from "./engines/raw-sql.ts";
export {
  createPooledTestDatabase,
  pgbouncerAvailable,
  startPgBouncer,
  type PgBouncer,
  type PgBouncerRow,
  type PooledOpenOptions,
  type PooledTestDatabase,
} from "./engines/pgbouncer.ts";
export {
  StreamModelFailure,
  checkStreamModel,
  describeStreamModelReport,
  type StoreSource,
  type StreamModelOptions,
  type StreamModelReport,
} from "./streams/stream-model.ts";
export { RuleBroken, type FencingUse, type ModelRule } from "./streams/model-rules.ts";
export type { OwnProjectionCheck } from "./streams/model-run.ts";
export {
  eventShapes,
  expectEventShapes,
  type EventSamples,
  type EventShape,
  type EventShapes,
  type EventShapesOutcome,
  type SampleEvent,
} from "./streams/event-shapes.ts";
