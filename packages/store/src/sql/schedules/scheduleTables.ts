import type { Schedule, ScheduleState } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/** The `schedules` projection (migration 008): one row per schedule, the fold of its stream. */
export interface SchedulesTable {
  name: string;
  state: string;
  cron: string;
  timezone: string;
  /** The payload of every job it enqueues, as canonical JSON text. */
  payload: string;
  queue: string;
  since: number;
  last_slot: number | null;
  fired: number;
  updated_at: number;
  version: number;
}

/** A view of `db` (or a transaction) that knows the `schedules` table. */
export function scheduleDb(db: Kysely<VerqDatabase>): Kysely<VerqDatabase & { schedules: SchedulesTable }> {
  return db.withTables<{ schedules: SchedulesTable }>();
}

/** The row of a schedule. */
export function scheduleToRow(s: Schedule): SchedulesTable {
  return {
    name: s.name,
    state: s.state,
    cron: s.cron,
    timezone: s.timezone,
    payload: JSON.stringify(s.payload),
    queue: s.queue,
    since: s.since,
    last_slot: s.lastSlot,
    fired: s.fired,
    updated_at: s.updatedAt,
    version: s.version,
  };
}

/** The schedule of a row (engines return bigint columns as strings or numbers). */
export function rowToSchedule(row: SchedulesTable): Schedule {
  return {
    name: row.name,
    state: row.state as ScheduleState,
    cron: row.cron,
    timezone: row.timezone,
    payload: JSON.parse(row.payload) as Schedule["payload"],
    queue: row.queue,
    since: Number(row.since),
    lastSlot: row.last_slot === null ? null : Number(row.last_slot),
    fired: Number(row.fired),
    updatedAt: Number(row.updated_at),
    version: Number(row.version),
  };
}
