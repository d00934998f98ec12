/**
 * `@verq/adapters/files`: the file queue. Its folders, the consumer that hands each message to
 * the service's handler once, its message profiles, and the operators' tools (lag, the error
 * list, replay, schema inference). Loads zod and node:fs, and no HTTP server or client.
 *
 * The export list is kept by hand: everything else under `src/files` may change at any time.
 *
 * @packageDocumentation
 */
export { QUEUE_FOLDERS, initQueue, openQueue, queueDirs, type QueueDirs } from "./queue-dirs.ts";
export {
  FileConsumer,
  type ConsumedMessage,
  type FileConsumerOptions,
  type FileMessageHandler,
  type HandlerTransaction,
} from "./file-consumer.ts";
export type { ConsumeTotals, FileOutcome } from "./consume-totals.ts";
export { DEFAULT_MAX_BYTES } from "./read-claimed-file.ts";
export { DEFAULT_PROFILE, FIELD_TYPES, loadProfile, parseProfile, type FieldType, type FileQueueProfile } from "./profile.ts";
export { formatLag, measureLag, type QueueLag } from "./queue-lag.ts";
export { listErrors, type ErrorEntry } from "./error-list.ts";
export { checkFileName, replayFile } from "./replay-file.ts";
export { inferSchema, type InferredSchema, type SchemaField } from "./schema-inference.ts";
