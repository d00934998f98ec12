import { SCHEDULE_STREAM, type Schedule, type ScheduleEvent } from "@verq/core";
import type { StreamProjection } from "../command-path.ts";
import { selectSchedules } from "../sql/schedules/selectSchedules.ts";
import { writeScheduleRow } from "../sql/schedules/writeScheduleRow.ts";

/**
 * How the store keeps schedules on the one command path: loaded by name from `schedules`;
 * projected as the row of each change, in the same transaction as its events.
 */
export const scheduleStream: StreamProjection<Schedule, ScheduleEvent> = {
  streamType: SCHEDULE_STREAM,
  idOf: (schedule) => schedule.name,
  async load(trx, names) {
    const found = new Map<string, Schedule>();
    for (const schedule of await selectSchedules(trx, { names })) found.set(schedule.name, schedule);
    return found;
  },
  async project(trx, changes) {
    for (const { before, after } of changes) await writeScheduleRow(trx, before, after);
  },
};
