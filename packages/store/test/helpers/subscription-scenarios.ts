import { ManualClock } from "@verq/core";
import { sql } from "kysely";
import { expect } from "vitest";
import { EventSubscriptions, JobQueue, readAllEvents, type StoredEvent, type VerqStore } from "../../src/index.ts";
import type { EventSubscriptionsOptions } from "../../src/subscriptions.ts";
import { until } from "./until.ts";

export { until };

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const positions = (events: readonly StoredEvent[]) => events.map((e) => e.position);

/**
 * At least once (E1): a handler that throws on its second batch stops the subscription; the
 * checkpoint stays before that batch, and the next subscriber of the name gets it again.
 * `options` builds the subscriptions (a mutant's delivery or reader, in the mutation tests).
 */
export async function throwingHandlerScenario(store: VerqStore, options: EventSubscriptionsOptions = {}): Promise<void> {
  await new JobQueue(store, { clock: new ManualClock() }).enqueueMany([1, 2, 3].map((i) => ({ id: `j-${i}`, payload: {} })));
  const subscriptions = new EventSubscriptions(store, options);
  const calls: number[][] = [];
  const failing = subscriptions.subscribe({
    name: "flaky",
    batchSize: 2,
    handle: (batch) => {
      calls.push(positions(batch));
      if (calls.length === 2) throw new Error("the export target is down");
    },
  });
  await expect(failing.done).rejects.toThrow("the export target is down");
  expect(calls).toEqual([[1, 2], [3]]);
  expect((await subscriptions.checkpoint("flaky"))?.position).toBe(2);
  const again: number[][] = [];
  await subscriptions.subscribe({ name: "flaky", batchSize: 2, live: false, handle: (b) => void again.push(positions(b)) }).done;
  expect(again).toEqual([[3]]);
}

/**
 * The gap (PostgreSQL, E1): a transaction takes a position and stays open while a later
 * position commits. A live subscriber on `reader` must wait at the gap (nothing delivered, no
 * checkpoint), then deliver both in position order once the slow one commits. `slowWriter` is
 * another store on the same database. The slow transaction is always released and the
 * subscription stopped, whether the expectations hold or not.
 */
export async function gapScenario(
  reader: VerqStore,
  slowWriter: VerqStore,
  options: EventSubscriptionsOptions = {},
): Promise<void> {
  const clock = new ManualClock();
  const seen: StoredEvent[] = [];
  const subscription = new EventSubscriptions(reader, options).subscribe({
    name: "gap",
    pollMs: 10,
    handle: (b) => void seen.push(...b),
  });

  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { open, opened };
  };
  const fastHasId = gate();
  const slowHasPosition = gate();
  const releaseSlow = gate();
  let slowPosition = 0;
  // The fast transaction takes its id first (a service's own write, as in a transactional
  // enqueue), the slow one then takes a position, and the fast one a later position and commits:
  // the running slow transaction is then newer than every completed one.
  const fast = reader.transaction(async (trx) => {
    await sql`select pg_current_xact_id()`.execute(trx);
    fastHasId.open();
    await slowHasPosition.opened;
    await new JobQueue(reader, { clock }).enqueue({ id: "fast", payload: {} }, { trx });
  });
  const slow = (async () => {
    await fastHasId.opened;
    await slowWriter.transaction(async (trx) => {
      await new JobQueue(slowWriter, { clock }).enqueue({ id: "slow", payload: {} }, { trx });
      const { rows } = await sql<{ p: number }>`select max(position) as p from events`.execute(trx);
      slowPosition = Number(rows[0]?.p);
      slowHasPosition.open();
      await releaseSlow.opened;
    });
  })();
  try {
    await fast;
    const [fastEvent] = await readAllEvents(reader.db);
    // The hazard is real: the later position is committed and visible, the earlier one is not.
    expect(fastEvent?.streamId).toBe("fast");
    expect(fastEvent?.position).toBeGreaterThan(slowPosition);

    await sleep(500);
    expect(positions(seen)).toEqual([]);
    expect(await new EventSubscriptions(reader).checkpoint("gap")).toBeUndefined();

    releaseSlow.open();
    await slow;
    await until(() => seen.length === 2, "both events");
    expect(seen.map((e) => [e.position, e.streamId])).toEqual([
      [slowPosition, "slow"],
      [fastEvent?.position, "fast"],
    ]);
  } finally {
    releaseSlow.open();
    await slow;
    await subscription.stop();
  }
}
