import type { ScheduleEvent } from "./schedule.events.ts";
import { newSchedule, type Schedule } from "./schedule.types.ts";

/**
 * Folds one event into a schedule. Pure. It does not check that the move is allowed (that is the
 * machine's job, before the event exists).
 */
export function evolveSchedule(schedule: Schedule, event: ScheduleEvent): Schedule {
  const base = { ...schedule, updatedAt: event.data.at, version: schedule.version + 1 };
  switch (event.type) {
    case "schedule.added":
    case "schedule.updated": {
      const { cron, timezone, payload, queue, at } = event.data;
      return { ...base, state: "active", cron, timezone, payload, queue, since: at };
    }
    case "schedule.removed":
      return { ...base, state: "removed" };
    case "schedule.fired":
      return { ...base, lastSlot: event.data.slot, fired: schedule.fired + 1 };
  }
}

/** The fold of a whole stream, in version order, from {@link newSchedule} with `name`. */
export function foldSchedule(name: string, events: readonly ScheduleEvent[]): Schedule {
  return events.reduce(evolveSchedule, newSchedule(name));
}
