import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/** What a wake-up is about: jobs became claimable. */
export type WakeupTopic = "jobs";

/**
 * Wake-ups between processes that share a store, so that idle workers start at once instead of
 * at their next poll (polling stays as the fallback for anything a wake-up misses). On SQLite
 * there is no channel between processes and both calls do nothing; on PostgreSQL they are
 * `NOTIFY` and `LISTEN`.
 */
export interface Wakeups {
  /**
   * Announces `topic` from inside `trx`: delivered only when it commits, and never after a
   * rollback (PostgreSQL queues a NOTIFY with its transaction).
   */
  notify(trx: Kysely<VerqDatabase>, topic: WakeupTopic): Promise<void>;
  /** Calls `listener` for every announcement of `topic` by any process; returns the function that stops. */
  subscribe(topic: WakeupTopic, listener: () => void): () => void;
  /** Ends the listening connection, if any. */
  close(): Promise<void>;
}

/** The wake-ups of a store with no channel between processes (SQLite): none. */
export const noWakeups: Wakeups = {
  notify: () => Promise.resolve(),
  subscribe: () => () => {},
  close: () => Promise.resolve(),
};
