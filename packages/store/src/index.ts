export type { SqliteOptions } from "./dialect/sqlite-connection.ts";
export type { StoreDialect } from "./dialect/store-dialect.ts";
export {
  JobQueue,
  type ClaimedJob,
  type EnqueueInput,
  type EnqueueResult,
  type JobQueueOptions,
  type RedriveLimit,
  type RedriveRecord,
  type RunOnceResult,
  type Sender,
} from "./job-queue.ts";
export type { VerqDatabase } from "./schema.ts";
export type { JobStats } from "./sql/selectJobStats.ts";
export type { StoredEvent } from "./sql/readStream.ts";
export { VerqStore, openStore, type OpenStoreOptions } from "./store.ts";
export { ReceiptBook, type ReceiptResult, type ReceiverCounts } from "./receipt-book.ts";
