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
import { byStreamType, upcastEvents } from "../../declared/upcast-events.ts";
import { readAllEvents } from "../events/readAllEvents.ts";
import { scheduleDb, scheduleToRow } from "./scheduleTables.ts";

/**
 * Replaces `schedules` with the fold of the `schedule` event streams (each event at its
 * current shape), in the caller's transaction. The live rows are written in the same transaction as their events, so a rebuild
 * must give exactly the same rows.
 */
export async function rebuildScheduleProjections(trx: Kysely<VerqDatabase>): Promise<{ schedules: number; events: number }> {
  await scheduleDb(trx).deleteFrom("schedules").execute();
  const events = upcastEvents(await readAllEvents(trx, SCHEDULE_STREAM), byStreamType());
  const schedules = new Map<string, Schedule>();
  for (const stored of events) {
    if (!(SCHEDULE_EVENT_TYPES as readonly string[]).includes(stored.type))
      throw new Error(`unknown schedule event type ${stored.type}`);
    const event = { type: stored.type, data: stored.data } as ScheduleEvent;
    schedules.set(stored.streamId, evolveSchedule(schedules.get(stored.streamId) ?? newSchedule(stored.streamId), event));
  }
  for (const schedule of schedules.values())
    await scheduleDb(trx).insertInto("schedules").values(scheduleToRow(schedule)).execute();
  return { schedules: schedules.size, events: events.length };
}
