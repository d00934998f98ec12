/** The queue of a job enqueued without one, and of every job written before queues existed. */
export const DEFAULT_QUEUE = "default";

/** Whether a queue has a global concurrency limit. */
export type QueueLimitState = "unlimited" | "limited";

/**
 * A named queue's settings as the fold of its `queue.*` events, from {@link newQueue}: at most
 * `maxLeased` of its jobs are leased at once, across every process and host on the store
 * (`null`: no limit). A queue exists by its jobs; it has a stream only once a limit was set.
 */
export interface QueueSettings {
  /** The stream id: the queue's name. */
  readonly name: string;
  readonly state: QueueLimitState;
  /** The most jobs of the queue leased at once; null while unlimited. */
  readonly maxLeased: number | null;
  /** Time of the last event applied (0 while there is none). */
  readonly updatedAt: number;
  /** Version of the stream: the number of events applied. */
  readonly version: number;
}

/**
 * What a claim knows of a job's queue, read in the claim's transaction: how many of its jobs are
 * leased now (counting the ones a batch claim granted before this one) and its limit.
 */
export interface QueueLoad {
  readonly leased: number;
  readonly maxLeased: number | null;
}

/**
 * Whether a queue with `load` has no free slot: it has a limit and that many of its jobs are
 * leased. The job machine's `queueFull` guard refuses a claim by it, and a batch claim leaves such
 * a queue out of its search for pending jobs by it; undefined (no load read) is never full.
 */
export function isQueueFull(load: QueueLoad | undefined): boolean {
  return load !== undefined && load.maxLeased !== null && load.leased >= load.maxLeased;
}

/** The queue `name` before its first event: unlimited, version 0. Never stored. */
export function newQueue(name: string): QueueSettings {
  return { name, state: "unlimited", maxLeased: null, updatedAt: 0, version: 0 };
}
