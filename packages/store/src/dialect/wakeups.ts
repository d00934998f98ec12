import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/** What a wake-up is about: jobs became claimable (an enqueue, a redrive). */
export type WakeupTopic = "jobs";

/**
 * Wake-ups of the idle workers that share a store, so that they start at once instead of at
 * their next poll (polling stays as the fallback for anything a wake-up misses): in this
 * process through the store itself, and between processes through the database's channel. On
 * SQLite there is no channel between processes; on PostgreSQL it is `NOTIFY` and `LISTEN`.
 */
export interface Wakeups {
  /**
   * Announces `topic` to other processes from inside `trx`: delivered only when it commits, and
   * never after a rollback (PostgreSQL queues a NOTIFY with its transaction). With `othersOnly`,
   * this store's own subscribers are not told again: the caller wakes them with
   * {@link wakeHere} once it has seen the commit.
   */
  notify(trx: Kysely<VerqDatabase>, topic: WakeupTopic, othersOnly?: boolean): Promise<void>;
  /**
   * True when a committed announcement also reaches this store's own subscribers (PostgreSQL's
   * LISTEN hears every commit on the database); false when there is no channel (SQLite).
   */
  readonly reachesOwnSubscribers: boolean;
  /**
   * The channel and payload of {@link notify}, for a statement that sends it itself (see
   * `Statements.standaloneWrites`); null where there is no channel.
   */
  notification(topic: WakeupTopic, othersOnly: boolean): { readonly channel: string; readonly payload: string } | null;
  /** Calls this store's own subscribers of `topic` at once. */
  wakeHere(topic: WakeupTopic): void;
  /** Calls `listener` for every wake-up of `topic` in this store and every announcement by another; returns the function that stops. */
  subscribe(topic: WakeupTopic, listener: () => void): () => void;
  /** Ends the listening connection, if any. */
  close(): Promise<void>;
}

/** The wake-ups of a store with no channel between processes (SQLite): its own subscribers only. */
export function localWakeups(): Wakeups {
  const listeners = new Map<WakeupTopic, Set<() => void>>();
  return {
    notify: () => Promise.resolve(),
    notification: () => null,
    reachesOwnSubscribers: false,
    wakeHere(topic) {
      for (const listener of listeners.get(topic) ?? []) listener();
    },
    subscribe(topic, listener) {
      let set = listeners.get(topic);
      if (set === undefined) listeners.set(topic, (set = new Set()));
      set.add(listener);
      return () => void set.delete(listener);
    },
    close: () => Promise.resolve(),
  };
}
