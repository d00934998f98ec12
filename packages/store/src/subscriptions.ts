import { VerqError, checkSubscription, systemClock, type Clock, type AnyStreamDefinition } from "@verq/core";
import type { EventPositions, PositionMark } from "./dialect/event-positions.ts";
import { selectEventsAfter } from "./sql/events/selectEventsAfter.ts";
import type { StoredEvent } from "./sql/events/storedEvent.ts";
import { byStreamType, upcastEvents } from "./declared/upcast-events.ts";
import { selectCheckpoint, selectCheckpoints, type Checkpoint } from "./sql/subscriptions/selectCheckpoint.ts";
import { saveCheckpoint } from "./sql/subscriptions/saveCheckpoint.ts";
import type { VerqStore } from "./store.ts";

/** How long a reader waits before it asks again whether the writers in flight at its mark have ended (PostgreSQL). */
const SETTLE_RETRY_MS = 20;

/** What to read, and what to do with it (see {@link EventSubscriptions.subscribe}). */
export interface SubscribeOptions {
  /**
   * The subscriber's name, under which its checkpoint is kept: with a name, reading resumes
   * after the last event `handle` accepted, in this process or a later one. Without, nothing is
   * kept and reading starts at `from` every time.
   */
  readonly name?: string;
  /**
   * The first position to deliver (default 1: the whole log). Only for a subscriber that has no
   * checkpoint yet: once it has one, the checkpoint wins.
   */
  readonly from?: number;
  /** Only events of these stream types (`job`, `guid`, `message`, …); every type when left out. Keep them the same for one name. */
  readonly types?: readonly string[];
  /**
   * Declared stream types (`defineStream`) whose events are delivered upcast to their event
   * types' current schema versions; events of other types come as stored.
   */
  readonly streams?: readonly AnyStreamDefinition[];
  /** The most events one call of `handle` gets (default 100, at most 10,000). */
  readonly batchSize?: number;
  /** Pause between polls once caught up (default 250 ms); an enqueue or a redrive, in any process on PostgreSQL, cuts it short. */
  readonly pollMs?: number;
  /**
   * True (the default): after the catch-up, follow the log until {@link Subscription.stop}.
   * False: stop by itself once caught up with the log as it stood at the start.
   */
  readonly live?: boolean;
  /**
   * Called with each batch, in position order, one call at a time. The checkpoint moves past a
   * batch only after its promise resolved: a crash or a throw before that delivers it again
   * (at least once). A throw stops the subscription and rejects {@link Subscription.done}.
   */
  readonly handle: (batch: readonly StoredEvent[]) => Promise<void> | void;
}

/** A running subscription. */
export interface Subscription {
  /** The position of the last event handled (before the first batch: where reading starts, minus one). */
  readonly position: number;
  /**
   * Resolves when the subscription ends by {@link stop} or, when not live, once caught up;
   * rejects with the error that ended it (a throw of `handle`, a store error). Await it.
   */
  readonly done: Promise<void>;
  /** Stops after the batch in progress (its checkpoint is saved) and resolves once stopped; never rejects. */
  stop(): Promise<void>;
}

/**
 * How a subscription delivers a batch: `handle` hands it to the subscriber, `checkpoint` moves
 * the subscriber's checkpoint past it. The store's own calls `checkpoint` only once `handle`
 * resolved (at least once).
 */
export type SubscriptionDelivery = (handle: () => Promise<void>, checkpoint: () => Promise<void>) => Promise<void>;

/** Options of {@link EventSubscriptions}. */
export interface EventSubscriptionsOptions {
  /** The time recorded with each checkpoint (default: the system clock). */
  readonly clock?: Clock;
  /**
   * How each batch is delivered (see {@link SubscriptionDelivery}): handle, then checkpoint, by
   * default, and in production always. A test passes one that saves first to prove that its
   * suite catches a lost batch.
   */
  readonly deliver?: SubscriptionDelivery | undefined;
  /**
   * Whether no transaction can still commit at or below a mark: the dialect's `positionsSettled`
   * by default, and in production always. A test passes one that says yes too early to prove
   * that its suite catches a reader passing an event that commits late.
   */
  readonly positionsSettled?: EventPositions["positionsSettled"] | undefined;
}

/** The parts of a running subscription that its options may replace. */
interface DeliveryParts {
  readonly deliver: SubscriptionDelivery | undefined;
  readonly positionsSettled: EventPositions["positionsSettled"] | undefined;
}

/**
 * Durable subscriptions to a store's event log (SPEC E1): a catch-up from a position, then live
 * reading (polling on SQLite; LISTEN/NOTIFY with a fallback poll on PostgreSQL), at least once,
 * in position order, with a checkpoint per subscriber name that only moves after the handler
 * accepted a batch, and never back. A reader never passes an event that commits late: on
 * PostgreSQL it reads only up to positions that no transaction in flight can still take
 * (`EventPositions.positionsSettled`), so a subscriber waits behind the oldest open writing
 * transaction of the server.
 *
 * @example
 * const subscriptions = new EventSubscriptions(store);
 * const audit = subscriptions.subscribe({
 *   name: "audit-export",
 *   types: ["job"],
 *   handle: async (batch) => exportLines(batch.map((e) => JSON.stringify(e))),
 * });
 * // … at shutdown:
 * await audit.stop();
 */
export class EventSubscriptions {
  readonly #store: VerqStore;
  readonly #clock: Clock;
  readonly #parts: DeliveryParts;

  constructor(store: VerqStore, options: EventSubscriptionsOptions = {}) {
    this.#store = store;
    this.#clock = options.clock ?? systemClock;
    this.#parts = { deliver: options.deliver, positionsSettled: options.positionsSettled };
  }

  /**
   * Starts reading. Options are checked first: anything malformed is `VERQ_INVALID_ARGUMENT`,
   * thrown at once, and nothing is read or written.
   */
  subscribe(options: SubscribeOptions): Subscription {
    const checked = checkSubscription(options);
    if (typeof options.handle !== "function") throw new VerqError("VERQ_INVALID_ARGUMENT", "handle must be a function");
    if (options.live !== undefined && typeof options.live !== "boolean")
      throw new VerqError("VERQ_INVALID_ARGUMENT", "live must be true or false");
    return new RunningSubscription(this.#store, this.#clock, this.#parts, {
      ...checked,
      live: options.live ?? true,
      handle: options.handle,
      streams: options.streams,
    });
  }

  /** The checkpoint of the subscriber `name`, or undefined when it has none yet. */
  checkpoint(name: string): Promise<Checkpoint | undefined> {
    return selectCheckpoint(this.#store.db, name);
  }

  /** Every subscriber's checkpoint, by name. */
  checkpoints(): Promise<Checkpoint[]> {
    return selectCheckpoints(this.#store.db);
  }
}

interface RunOptions {
  readonly name: string | undefined;
  readonly from: number;
  readonly types: readonly string[] | undefined;
  readonly batchSize: number;
  readonly pollMs: number;
  readonly live: boolean;
  readonly handle: (batch: readonly StoredEvent[]) => Promise<void> | void;
  readonly streams: readonly AnyStreamDefinition[] | undefined;
}

/** At least once: the checkpoint moves only once the handler has accepted the batch. */
const handleThenCheckpoint: SubscriptionDelivery = async (handle, checkpoint) => {
  await handle();
  await checkpoint();
};

class RunningSubscription implements Subscription {
  readonly done: Promise<void>;
  #position: number;
  #stopped = false;
  #wakePending = false;
  #wake: (() => void) | null = null;

  private readonly store: VerqStore;
  private readonly clock: Clock;
  private readonly options: RunOptions;
  private readonly parts: DeliveryParts;

  constructor(store: VerqStore, clock: Clock, parts: DeliveryParts, options: RunOptions) {
    this.store = store;
    this.clock = clock;
    this.parts = parts;
    this.options = options;
    this.#position = Math.max(options.from - 1, 0);
    this.done = this.#run();
  }

  get position(): number {
    return this.#position;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#interrupt();
    await this.done.catch(() => {});
  }

  #interrupt(): void {
    this.#wakePending = true;
    this.#wake?.();
  }

  /** Waits `ms`, or less when woken (a NOTIFY, a stop); at once if a wake-up came since the last wait. */
  #pause(ms: number): Promise<void> {
    if (this.#wakePending) {
      this.#wakePending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.#wake = null;
        this.#wakePending = false;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      this.#wake = finish;
    });
  }

  async #run(): Promise<void> {
    const { store, clock } = this;
    const { name, types, batchSize, pollMs, live, handle } = this.options;
    const definitions = byStreamType(this.options.streams);
    const { db, dialect } = store;
    const deliver = this.parts.deliver ?? handleThenCheckpoint;
    const settled = this.parts.positionsSettled ?? ((on, mark: PositionMark) => dialect.positions.positionsSettled(on, mark));
    // New jobs (enqueue, redrive) are announced to every process already; other events wait for the next poll.
    const unsubscribe = store.dialect.wakeups.subscribe("jobs", () => this.#interrupt());
    try {
      if (name !== undefined) {
        const saved = await selectCheckpoint(db, name);
        if (saved !== undefined) this.#position = saved.position;
      }
      // Events up to `horizon` are settled: no transaction can still commit one at or below it.
      let horizon = 0;
      let mark: PositionMark | null = null;
      let caughtUp = false;
      while (!this.#stopped) {
        const batch = await selectEventsAfter(db, this.#position, horizon, types, batchSize);
        const last = batch.at(-1);
        if (last !== undefined) {
          await deliver(
            async () => {
              await handle(upcastEvents(batch, definitions));
            },
            async () => {
              if (name !== undefined) await store.transaction((trx) => saveCheckpoint(trx, name, last.position, clock.now()));
            },
          );
          this.#position = last.position;
          if (batch.length === batchSize) continue;
        }
        if (caughtUp) break;
        mark ??= await dialect.positions.markPositions(db);
        if (!(await settled(db, mark))) {
          await this.#pause(Math.min(pollMs, SETTLE_RETRY_MS));
          continue;
        }
        const grew = mark.position > horizon;
        horizon = Math.max(horizon, mark.position);
        mark = null;
        if (!live) caughtUp = true;
        else if (!grew) await this.#pause(pollMs);
      }
    } finally {
      unsubscribe();
    }
  }
}
