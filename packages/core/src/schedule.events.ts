import type { ScheduleDefinition } from "./schedule.types.ts";

/** The stream type under which schedules are stored (stream id: the schedule's name). */
export const SCHEDULE_STREAM = "schedule";

/** The schedule was added (absent or removed → active): its slots count from `at`. */
export interface ScheduleAdded {
  readonly type: "schedule.added";
  readonly data: ScheduleDefinition & { readonly at: number };
}
/** An active schedule's definition changed: its slots count from `at`, its last slot is kept. */
export interface ScheduleUpdated {
  readonly type: "schedule.updated";
  readonly data: ScheduleDefinition & { readonly at: number };
}
/** The schedule was removed (active → removed): no slot of it is enqueued any more. */
export interface ScheduleRemoved {
  readonly type: "schedule.removed";
  readonly data: { readonly at: number };
}
/**
 * Slot `slot` was enqueued as job `jobId`, in the same transaction as this event. `firstMissed`:
 * the earliest due slot skipped for it by the missed-slot policy (only the latest is enqueued).
 */
export interface ScheduleFired {
  readonly type: "schedule.fired";
  readonly data: { readonly slot: number; readonly jobId: string; readonly firstMissed: number | null; readonly at: number };
}

/** Every fact recorded about a schedule. */
export type ScheduleEvent = ScheduleAdded | ScheduleUpdated | ScheduleRemoved | ScheduleFired;

/** The `type` of a {@link ScheduleEvent}. */
export type ScheduleEventType = ScheduleEvent["type"];

/** Typed creators: the only place event type strings are spelled. */
export const scheduleEvents = {
  added: (data: ScheduleAdded["data"]): ScheduleAdded => ({ type: "schedule.added", data }),
  updated: (data: ScheduleUpdated["data"]): ScheduleUpdated => ({ type: "schedule.updated", data }),
  removed: (data: ScheduleRemoved["data"]): ScheduleRemoved => ({ type: "schedule.removed", data }),
  fired: (data: ScheduleFired["data"]): ScheduleFired => ({ type: "schedule.fired", data }),
} as const;

/** All schedule event type names, for validation of stored rows. */
export const SCHEDULE_EVENT_TYPES: readonly ScheduleEventType[] = [
  "schedule.added",
  "schedule.updated",
  "schedule.removed",
  "schedule.fired",
];
