import type { JobState } from "@verq/core";
import type { JobQueue, VerqStore } from "@verq/store";
import { sql } from "kysely";

const STATES: readonly JobState[] = ["pending", "leased", "done", "dead"];

/** Every row of a table in key order, exactly as the database returns it. */
const ORDER_KEYS = {
  events: "position",
  jobs: "id",
  redrives: "position",
  counters: "name",
  ledger: "guid",
  messages: "id",
  processed: "msg_id",
  message_duplicates: "message_id",
} as const;

export async function tableRows(store: VerqStore, table: keyof typeof ORDER_KEYS): Promise<unknown[]> {
  const key = ORDER_KEYS[table];
  return (await sql`select * from ${sql.table(table)} order by ${sql.ref(key)}`.execute(store.db)).rows;
}

/** The `jobs` and `redrives` projections, raw. */
export async function projectionRows(store: VerqStore): Promise<{ jobs: unknown[]; redrives: unknown[] }> {
  return { jobs: await tableRows(store, "jobs"), redrives: await tableRows(store, "redrives") };
}

/**
 * What a user can observe of a queue (each job, its history, the stats, the per-state lists)
 * plus every raw table, so that two snapshots are equal only if nothing at all differs.
 */
export async function observeQueue(store: VerqStore, queue: JobQueue, ids: readonly string[]) {
  const jobs: Record<string, unknown> = {};
  const histories: Record<string, unknown> = {};
  for (const id of ids) {
    jobs[id] = await queue.get(id);
    histories[id] = await queue.history(id);
  }
  const lists: Record<string, unknown> = {};
  for (const state of STATES) lists[state] = await queue.list(state, { limit: 10_000 });
  return {
    jobs,
    histories,
    lists,
    stats: await queue.stats(),
    tables: {
      events: await tableRows(store, "events"),
      jobs: await tableRows(store, "jobs"),
      redrives: await tableRows(store, "redrives"),
      counters: await tableRows(store, "counters"),
    },
  };
}
