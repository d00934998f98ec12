import {
  checkQueueLimit,
  checkQueueName,
  decideQueue,
  newQueue,
  queueCommands,
  systemClock,
  type Clock,
  type QueueSettings,
} from "@verq/core";
import { handle } from "./command-path.ts";
import { queueTopic } from "./sql/queues/selectQueueLoads.ts";
import type { VerqStore } from "./store.ts";
import { queueStream } from "./streams/queue-stream.ts";

/** Settings of {@link QueueLimits}. */
export interface QueueLimitsOptions {
  readonly clock?: Clock;
}

/** A {@link QueueLimits.setQueueLimit}'s answer: `changed: false` when the queue already had that limit. */
export interface SetQueueLimitResult {
  readonly changed: boolean;
  readonly queue: QueueSettings;
}

/**
 * The global concurrency limits of named queues: each queue's settings are a stream decided by
 * the queue machine (`queue.limitSet` events), read by every claim in its transaction, where
 * the job machine's `queueFull` guard judges them. Not exported: `JobQueue.setQueueLimit` and
 * `JobQueue.queueSettings`, the one public way to set and read a limit, answer through it.
 */
export class QueueLimits {
  readonly #store: VerqStore;
  readonly #clock: Clock;

  constructor(store: VerqStore, options: QueueLimitsOptions = {}) {
    this.#store = store;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Sets the global concurrency limit of `queue`: from now on a claim never leases one of its
   * jobs while `maxLeased` of them are leased, across every process and host on this store (the
   * job machine's `queueFull` guard, judged in the claim's transaction). `null` removes the limit.
   * A lower limit than the jobs leased now takes no lease back. The change is a `queue.limitSet`
   * event on the queue's stream; setting the limit it already has changes nothing
   * (`changed: false`). Throws `VERQ_INVALID_ARGUMENT` for a bad name or limit.
   */
  async setQueueLimit(queue: string, options: { maxLeased: number | null }): Promise<SetQueueLimitResult> {
    const name = checkQueueName(queue);
    const maxLeased = checkQueueLimit(options?.maxLeased);
    return this.#store.transaction(async (trx) => {
      await this.#store.dialect.statements.exclusive(trx, queueTopic(name));
      const command = queueCommands.setLimit({ maxLeased, now: this.#clock.now() });
      const { before, decision } = await handle(trx, this.#store.dialect, queueStream, decideQueue, name, newQueue, command);
      return decision.accepted ? { changed: true, queue: decision.after } : { changed: false, queue: before };
    });
  }

  /** The settings of `queue` (unlimited, version 0 when no limit was ever set). */
  async queueSettings(queue: string): Promise<QueueSettings> {
    const name = checkQueueName(queue);
    return (await queueStream.load(this.#store.db, [name])).get(name) ?? newQueue(name);
  }
}
