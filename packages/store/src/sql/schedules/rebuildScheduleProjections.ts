import {
  SCHEDULE_EVENT_TYPES,
  SCHEDULE_STREAM,
  evolveSchedule,
  newSchedule,
  type Schedule,
  type ScheduleEvent,
} from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { scheduleDb, scheduleToRow } from "./scheduleTables.ts";

/**
 * Replaces `schedules` with the fold of the `schedule` event streams, in the caller's
 * transaction. The live rows are written in the same transaction as their events, so a rebuild
 * must give exactly the same rows.
 */
export async function rebuildScheduleProjections(trx: Kysely<VerqDatabase>): Promise<{ schedules: number; events: number }> {
  await scheduleDb(trx).deleteFrom("schedules").execute();
  const rows = await trx
    .selectFrom("events")
    .selectAll()
    .where("stream_type", "=", SCHEDULE_STREAM)
    .orderBy("position")
    .execute();
  const schedules = new Map<string, Schedule>();
  for (const row of rows) {
    if (!(SCHEDULE_EVENT_TYPES as readonly string[]).includes(row.type))
      throw new Error(`unknown schedule event type ${row.type}`);
    const event = { type: row.type, data: JSON.parse(row.data) as unknown } as ScheduleEvent;
    schedules.set(row.stream_id, evolveSchedule(schedules.get(row.stream_id) ?? newSchedule(row.stream_id), event));
  }
  for (const schedule of schedules.values())
    await scheduleDb(trx).insertInto("schedules").values(scheduleToRow(schedule)).execute();
  return { schedules: schedules.size, events: rows.length };
}
