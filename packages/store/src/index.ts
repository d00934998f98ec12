export type { SqliteOptions } from "./dialect/sqlite-options.ts";
export type { PostgresOptions } from "./dialect/postgres-options.ts";
export { isPostgresUrl } from "./dialect/postgres-url.ts";
export type { StoreDialect } from "./dialect/store-dialect.ts";
export type { BatchColumnType, Statements } from "./dialect/statements.ts";
export type { HotPath } from "./dialect/hot-path.ts";
export type { ErrorClassifier } from "./dialect/error-classifier.ts";
export type { EventPositions, PositionMark } from "./dialect/event-positions.ts";
export type { Maintenance } from "./dialect/maintenance.ts";
export type { MigrationSupport } from "./dialect/migration-support.ts";
export type { WakeupTopic, Wakeups } from "./dialect/wakeups.ts";
export type { InitialPart, MigrationParts, MigrationStep } from "./migrations/migration-parts.ts";
export {
  JobQueue,
  MAX_BATCH_SIZE,
  MAX_CLAIM_QUEUES,
  type ClaimOptions,
  type ClaimedJob,
  type EnqueueInput,
  type EnqueueOptions,
  type FinishInput,
  type EnqueueResult,
  type LeaseExpiry,
  type JobQueueOptions,
  type RedriveLimit,
  type CancelResult,
  type RedriveRecord,
  type RunOnceResult,
  type Sender,
  type SetQueueLimitResult,
} from "./job-queue.ts";
export { MAX_PRUNE_BATCH, type PruneOptions, type PruneResult } from "./job-retention.ts";
export { JobWorker, type DrainOptions, type JobWorkerOptions, type JobWorkerReport, type JobWorkerResult } from "./job-worker.ts";
export { errorFields, type LogFn, type VerqLogger } from "./verq-logger.ts";
export type { VerqDatabase } from "./schema.ts";
export type { JobStats, QueueStats } from "./sql/jobs/selectJobStats.ts";
export { readAllEvents } from "./sql/events/readAllEvents.ts";
export { EventSubscriptions, type EventSubscriptionsOptions, type SubscribeOptions, type Subscription } from "./subscriptions.ts";
export type { Checkpoint } from "./sql/subscriptions/selectCheckpoint.ts";
export type { StoredEvent } from "./sql/events/storedEvent.ts";
export { VerqStore, openStore, type OpenStoreOptions, type SqliteStoreOptions } from "./store.ts";
export { ReceiptBook, type ReceiptResult, type ReceiverCounts } from "./receipt-book.ts";
export {
  GuidLedger,
  checkPurgeRetention,
  type ClaimInput,
  type GuidLedgerOptions,
  type LedgerChange,
  type PurgeResult,
  type ReceiveResult,
  type RecoverResult,
} from "./guid-ledger.ts";
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
export type { OrderCheck, OrderProblem } from "./sql/files/checkMessageOrder.ts";
export type { MessageDuplicate } from "./sql/files/selectMessageDuplicates.ts";
export type { MessageStats } from "./sql/files/selectMessageStats.ts";
export type { ProcessedTable } from "./sql/files/messageTables.ts";
export { checkStore, type CheckOptions, type CheckReport } from "./check/check-store.ts";
export { FINDING_CODES, formatFinding, type Finding, type FindingCode } from "./check/finding.ts";
