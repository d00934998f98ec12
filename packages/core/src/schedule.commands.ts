import type { ScheduleDefinition } from "./schedule.types.ts";

/**
 * Add the schedule, or change its definition. Accepted with a valid name, cron expression,
 * timezone and queue; refused as `unchanged` when the schedule is active with this very definition
 * (so that a service may declare its schedules on every start). Slots count from `now`.
 */
export interface ScheduleDefineCommand {
  readonly type: "schedule.define";
  readonly definition: ScheduleDefinition;
  readonly now: number;
}
/** Remove an active schedule; `not-found` otherwise. */
export interface ScheduleRemoveCommand {
  readonly type: "schedule.remove";
  readonly now: number;
}
/**
 * Record that slot `slot` is enqueued. Accepted only for an active schedule, for a slot of its
 * cron expression, after its last enqueued slot (`already-fired` otherwise), and due: not before
 * the schedule's `since`, not after `now` (`not-due`). `firstMissed` is the earliest slot the
 * missed-slot policy skipped for this one, or null.
 */
export interface ScheduleFireCommand {
  readonly type: "schedule.fire";
  readonly slot: number;
  readonly firstMissed: number | null;
  readonly now: number;
}

/** Everything asked of a schedule; each is decided by `scheduleMachine`. */
export type ScheduleCommand = ScheduleDefineCommand | ScheduleRemoveCommand | ScheduleFireCommand;

/** Typed creators: the only place command type strings are spelled. */
export const scheduleCommands = {
  define: (c: Omit<ScheduleDefineCommand, "type">): ScheduleDefineCommand => ({ type: "schedule.define", ...c }),
  remove: (c: Omit<ScheduleRemoveCommand, "type">): ScheduleRemoveCommand => ({ type: "schedule.remove", ...c }),
  fire: (c: Omit<ScheduleFireCommand, "type">): ScheduleFireCommand => ({ type: "schedule.fire", ...c }),
} as const;
