import { createMachineDecider, type Decider, type Decision, type MachineExecution } from "./decider.ts";
import type { ScheduleCommand } from "./schedule.commands.ts";
import type { ScheduleEvent } from "./schedule.events.ts";
import { scheduleMachine, type ScheduleMachine, type ScheduleRefusal } from "./schedule.machine.ts";
import { newSchedule, type Schedule } from "./schedule.types.ts";

/** What the schedule machine decided (see {@link Decision}). */
export type ScheduleDecision = Decision<Schedule, ScheduleEvent, ScheduleRefusal, ScheduleCommand["type"]>;

/** Decides commands, in order, against one schedule through the schedule machine (see {@link Decider}). */
export type ScheduleDecider = Decider<Schedule, ScheduleCommand, ScheduleEvent, ScheduleRefusal>;

/**
 * Builds a decider over `machine` (the real {@link scheduleMachine} unless a test passes a variant
 * made with `scheduleMachine.provide(...)`), on the one command path of {@link createMachineDecider}.
 */
export function createScheduleDecider(
  machine: ScheduleMachine = scheduleMachine,
  execution: MachineExecution = "table",
): ScheduleDecider {
  return createMachineDecider({ machine, field: "schedule", placeholder: newSchedule("placeholder") }, "unhandled", execution);
}

/**
 * The decider over the real schedule machine, which the store's schedules use.
 *
 * @example
 * const decision = decideSchedule(schedule, scheduleCommands.fire({ slot, firstMissed: null, now }));
 * if (!decision.accepted && decision.refusal === "already-fired") return; // another scheduler was first
 */
export const decideSchedule: ScheduleDecider = createScheduleDecider();
