export type { SqliteOptions } from "./dialect/sqlite-options.ts";
export type { PostgresOptions } from "./dialect/postgres-options.ts";
export { isPostgresUrl } from "./dialect/postgres-url.ts";
export type { StoreDialect } from "./dialect/store-dialect.ts";
export type { BatchColumnType, BatchText, BatchValue, Statements } from "./dialect/statements.ts";
export type { HotPath } from "./dialect/hot-path.ts";
export type { ErrorClassifier } from "./dialect/error-classifier.ts";
export type { EventPositions, PositionMark } from "./dialect/event-positions.ts";
export type { Maintenance } from "./dialect/maintenance.ts";
export type { MigrationSupport } from "./dialect/migration-support.ts";
export type { WakeupTopic, Wakeups } from "./dialect/wakeups.ts";
export type { InitialPart, MigrationParts, MigrationStep } from "./migrations/migration-parts.ts";
export { JobQueue } from "./jobs/job-queue.ts";
export { MAX_BATCH_SIZE, type ClaimCandidates, type JobQueueOptions, type RedriveLimit } from "./jobs/job-context.ts";
export { type EnqueueInput, type EnqueueOptions, type EnqueueResult } from "./jobs/enqueue-jobs.ts";
export { MAX_CLAIM_QUEUES, type ClaimOptions, type ClaimedJob, type LeaseExpiry } from "./jobs/claim-jobs.ts";
export { type FailureInput, type FinishInput, type RecordInput, type RunOnceResult, type Sender } from "./jobs/finish-jobs.ts";
export { type CancelResult, type RedriveRecord } from "./jobs/job-operations.ts";
export { entryUnchangedSince, type SeenVersion } from "./seen-version.ts";
export type { SetQueueLimitResult } from "./queue-limits.ts";
export { MAX_PRUNE_BATCH, type PruneOptions, type PruneResult } from "./job-retention.ts";
export {
  defineJobKind,
  isJobKind,
  type JobKind,
  type JobKindDefinition,
  type KindEnqueueOptions,
  type KindHandler,
  type KindHandlerOptions,
  type KindJob,
} from "./jobs/job-kind.ts";
export { JobWorker } from "./jobs/job-worker.ts";
export type { DrainOptions, JobWorkerOptions, JobWorkerReport, JobWorkerResult } from "./jobs/job-worker-options.ts";
export { MAX_WORKER_ROUNDS } from "./jobs/job-worker-options.ts";
export { errorFields, silentLogger, stderrLogger, type LogFn, type VerqLogger } from "./verq-logger.ts";
export {
  VERQ_TRACER_VERSION,
  traceContextOf,
  verqTracing,
  type SpanAttributeValue,
  type SpanAttributes,
  type SpanOptions,
  type TraceParent,
  type VerqSpan,
  type VerqSpanKind,
  type VerqTracing,
} from "./verq-tracing.ts";
export type { VerqDatabase } from "./schema.ts";
export {
  JOB_STATS_NONE,
  type JobGroupStats,
  type JobStats,
  type JobStatsFilter,
  type KindStats,
  type QueueStats,
} from "./sql/jobs/selectJobStats.ts";
export { readAllEvents } from "./sql/events/readAllEvents.ts";
export {
  EventSubscriptions,
  type EventSubscriptionsOptions,
  type SubscribeOptions,
  type Subscription,
  type SubscriptionDelivery,
} from "./subscriptions.ts";
export type { Checkpoint } from "./sql/subscriptions/selectCheckpoint.ts";
export type { StoredEvent } from "./sql/events/storedEvent.ts";
export {
  VerqStore,
  openStore,
  type OpenStoreOptions,
  type PostgresStoreOptions,
  type SqliteStoreOptions,
  type StoreCreateOption,
} from "./store.ts";
export { VERQ_MIGRATION_TABLES, VERQ_TABLES, type VerqTable } from "./verq-tables.ts";
export { ReceiptBook, type ReceiptResult, type ReceiverCounts } from "./receipt-book.ts";
export {
  GuidLedger,
  type ClaimInput,
  type GuidClaimer,
  type GuidLedgerOptions,
  type LedgerChange,
  type ReceiveResult,
  type RecoverResult,
} from "./guid-ledger.ts";
export { checkPurgeRetention, type PurgeResult } from "./guid-purge.ts";
export type { LedgerStats } from "./sql/ledger/selectLedgerStats.ts";
export {
  FileLedger,
  type FileLedgerOptions,
  type MessageVerdict,
  type ProcessedMessage,
  type ProcessedMessageHandler,
  type SettleInput,
  type SettleResult,
} from "./file-ledger.ts";
export { Schedules, type FiredSlot, type ScheduleInput, type ScheduleResult, type SchedulesOptions } from "./schedules.ts";
export { OperatorLocks, type AcquireResult, type HeldLock, type OperatorLocksOptions } from "./operator-locks.ts";
export type { DeadCursor, DeadFilter } from "./sql/jobs/selectDeadPage.ts";
export type { JobsPageFilter } from "./sql/jobs/selectJobsPage.ts";
export type { JobsPage } from "./jobs/job-reads.ts";
export { OPEN_LEDGER_STATES, OperatorPages, type LedgerPage } from "./operator-pages.ts";
export type { OrderCheck, OrderProblem } from "./sql/files/checkMessageOrder.ts";
export type { MessageDuplicate } from "./sql/files/selectMessageDuplicates.ts";
export type { MessageStats } from "./sql/files/selectMessageStats.ts";
export type { ProcessedTable } from "./sql/files/messageTables.ts";
export { checkStore, type CheckOptions, type CheckReport } from "./check/check-store.ts";
export { FINDING_CODES, formatFinding, type Finding, type FindingCode } from "./check/finding.ts";
export {
  DeclaredStream,
  declareStream,
  declaredStreams,
  type DeclareOptions,
  type DeclaredItem,
  type HandleOptions,
  type HandleResult,
} from "./declared/declared-stream.ts";
export type { DeclaredChange, OwnProjection } from "./declared/declared-projection.ts";
export type { DeclaredProblem } from "./declared/declared-rebuild.ts";
