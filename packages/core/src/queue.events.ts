/** The stream type under which queue settings are stored (stream id: the queue's name). */
export const QUEUE_STREAM = "queue";

/** The queue's global concurrency limit became `maxLeased` (`null`: removed). */
export interface QueueLimitSet {
  readonly type: "queue.limitSet";
  readonly data: { readonly maxLeased: number | null; readonly at: number };
}

/** Every fact recorded about a queue. Each carries the whole state after it. */
export type QueueEvent = QueueLimitSet;

/** The `type` of a {@link QueueEvent}. */
export type QueueEventType = QueueEvent["type"];

/** Typed creators: the only place event type strings are spelled. */
export const queueEvents = {
  limitSet: (data: QueueLimitSet["data"]): QueueLimitSet => ({ type: "queue.limitSet", data }),
} as const;

/** All queue event type names, for validation of stored rows. */
export const QUEUE_EVENT_TYPES: readonly QueueEventType[] = ["queue.limitSet"];
