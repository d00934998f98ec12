import type { Decider, Decision, MachineExecution } from "./decider.ts";
import type { ScheduleCommand } from "./schedule.commands.ts";
import { SCHEDULE_STREAM, type ScheduleEvent } from "./schedule.events.ts";
import { evolveSchedule } from "./schedule.evolve.ts";
import { scheduleMachine, type ScheduleMachine, type ScheduleRefusal } from "./schedule.machine.ts";
import { newSchedule, type Schedule } from "./schedule.types.ts";
import { defineVerqStream, type StreamDefinition } from "./stream-definition.ts";

/** What the schedule machine decided (see {@link Decision}). */
export type ScheduleDecision = Decision<Schedule, ScheduleEvent, ScheduleRefusal, ScheduleCommand["type"]>;

/** Decides commands, in order, against one schedule through the schedule machine (see {@link Decider}). */
export type ScheduleDecider = Decider<Schedule, ScheduleCommand, ScheduleEvent, ScheduleRefusal>;

/** The schedule stream as verq declares it: the same parts and checks as a service's `defineStream`. */
export type ScheduleStreamDefinition = StreamDefinition<Schedule, ScheduleRefusal, ScheduleCommand, ScheduleEvent>;

/**
 * Declares the schedule stream over `machine` (the real {@link scheduleMachine} unless a test passes a
 * variant), through the path every stream type is declared by.
 */
export function defineScheduleStream(
  machine: ScheduleMachine = scheduleMachine,
  execution: MachineExecution = "table",
): ScheduleStreamDefinition {
  return defineVerqStream<Schedule, ScheduleRefusal, ScheduleCommand, ScheduleEvent>({
    name: SCHEDULE_STREAM,
    machine,
    field: "schedule",
    initial: newSchedule,
    evolve: evolveSchedule,
    unhandled: "unhandled",
    execution,
  });
}

/** The schedule stream's definition over the real machine: what the store, `verq events` and the checks read it by. */
export const scheduleStreamDefinition: ScheduleStreamDefinition = defineScheduleStream();

/**
 * Builds a decider over `machine` (the real {@link scheduleMachine} unless a test passes a variant
 * made with `scheduleMachine.provide(...)`), the decider of its
 * stream definition.
 */
export function createScheduleDecider(
  machine: ScheduleMachine = scheduleMachine,
  execution: MachineExecution = "table",
): ScheduleDecider {
  return defineScheduleStream(machine, execution).decider;
}

/**
 * The decider over the real schedule machine, which the store's schedules use.
 *
 * @example
 * const decision = decideSchedule(schedule, scheduleCommands.fire({ slot, firstMissed: null, now }));
 * if (!decision.accepted && decision.refusal === "already-fired") return; // another scheduler was first
 */
export const decideSchedule: ScheduleDecider = scheduleStreamDefinition.decider;
