import { assign, not, setup } from "xstate";
import { canonicalJson } from "./json.ts";
import { isValidQueueName } from "./queue.input.ts";
import type { ScheduleCommand } from "./schedule.commands.ts";
import { isCronSlot, isValidCron, isValidScheduleName, isValidTimezone, scheduleJobId } from "./schedule.cron.ts";
import { evolveSchedule } from "./schedule.evolve.ts";
import { scheduleEvents, type ScheduleEvent } from "./schedule.events.ts";
import type { Schedule } from "./schedule.types.ts";

/**
 * Why the machine refused a command. Refusals are data (no event is emitted); the store turns
 * them into answers or coded errors:
 * - define: `invalid-name`, `invalid-cron`, `invalid-timezone`, `invalid-queue`, and `unchanged`
 *   (active with the same definition: nothing to record);
 * - remove and fire: `not-found` (absent or removed);
 * - fire: `already-fired` (at or before the last enqueued slot), `not-due` (before the schedule's
 *   `since` or after `now`), `not-a-slot` (not a slot of its cron expression);
 * - `unhandled` when no transition took the command.
 */
export type ScheduleRefusal =
  | "invalid-name"
  | "invalid-cron"
  | "invalid-timezone"
  | "invalid-queue"
  | "unchanged"
  | "not-found"
  | "already-fired"
  | "not-due"
  | "not-a-slot"
  | "unhandled";

/** The machine's context: the schedule, the events a transition emitted, and a refusal if any. */
export interface ScheduleMachineContext {
  readonly schedule: Schedule;
  readonly emitted: readonly ScheduleEvent[];
  readonly refusal: ScheduleRefusal | null;
}

const record = (context: ScheduleMachineContext, event: ScheduleEvent): Partial<ScheduleMachineContext> => ({
  schedule: evolveSchedule(context.schedule, event),
  emitted: [...context.emitted, event],
});

/** Every define, in every state, is checked first, in this order: name, cron, timezone, queue. */
const DEFINITION_CHECKS = [
  { guard: not("validName"), actions: { type: "refuse", params: { refusal: "invalid-name" } } },
  { guard: not("validCron"), actions: { type: "refuse", params: { refusal: "invalid-cron" } } },
  { guard: not("validTimezone"), actions: { type: "refuse", params: { refusal: "invalid-timezone" } } },
  { guard: not("validQueue"), actions: { type: "refuse", params: { refusal: "invalid-queue" } } },
] as const;

/**
 * A schedule: absent → active by define, active → active by define (a changed definition) and by
 * fire (a due slot enqueued), active → removed by remove, removed → active by define.
 *
 * Guards carry every rule: the name, cron expression, timezone and queue are checked on define
 * (so no invalid schedule is ever stored); a fire is accepted only for a slot of the cron
 * expression, strictly after the last one enqueued (a slot is recorded at most once, and
 * `lastSlot` never goes back), from `since` up to `now` included (a slot exactly at `now` is
 * due, 1 ms later is not). Two schedulers that decide the same slot from the same version are
 * arbitrated by the event log's UNIQUE(stream, version), and the job id derived from the slot
 * makes the loser's enqueue a no-op. No side effects: the same definition runs in the store, in
 * tests and in the Stately visualizer.
 */
export const scheduleMachine = setup({
  types: {
    context: {} as ScheduleMachineContext,
    events: {} as ScheduleCommand,
    input: {} as Schedule,
  },
  guards: {
    validName: ({ context }) => isValidScheduleName(context.schedule.name),
    validCron: ({ event }) => event.type === "schedule.define" && isValidCron(event.definition.cron),
    validTimezone: ({ event }) => event.type === "schedule.define" && isValidTimezone(event.definition.timezone),
    validQueue: ({ event }) => event.type === "schedule.define" && isValidQueueName(event.definition.queue),
    unchanged: ({ context, event }) => {
      if (event.type !== "schedule.define") return false;
      const { cron, timezone, payload, queue } = context.schedule;
      const next = event.definition;
      return (
        cron === next.cron &&
        timezone === next.timezone &&
        queue === next.queue &&
        canonicalJson(payload) === canonicalJson(next.payload)
      );
    },
    afterLastSlot: ({ context, event }) =>
      event.type === "schedule.fire" && (context.schedule.lastSlot === null || event.slot > context.schedule.lastSlot),
    slotDue: ({ context, event }) =>
      event.type === "schedule.fire" && event.slot >= context.schedule.since && event.slot <= event.now,
    isSlot: ({ context, event }) =>
      event.type === "schedule.fire" && isCronSlot(context.schedule.cron, context.schedule.timezone, event.slot),
  },
  actions: {
    refuse: assign((_, params: { refusal: ScheduleRefusal }) => ({ refusal: params.refusal })),
    add: assign(({ context, event }) => {
      if (event.type !== "schedule.define") return {};
      return record(context, scheduleEvents.added({ ...event.definition, at: event.now }));
    }),
    update: assign(({ context, event }) => {
      if (event.type !== "schedule.define") return {};
      return record(context, scheduleEvents.updated({ ...event.definition, at: event.now }));
    }),
    remove: assign(({ context, event }) => record(context, scheduleEvents.removed({ at: event.now }))),
    fire: assign(({ context, event }) => {
      if (event.type !== "schedule.fire") return {};
      const { slot, firstMissed, now } = event;
      return record(
        context,
        scheduleEvents.fired({ slot, jobId: scheduleJobId(context.schedule.name, slot), firstMissed, at: now }),
      );
    }),
  },
}).createMachine({
  id: "schedule",
  context: ({ input }) => ({ schedule: input, emitted: [], refusal: null }),
  initial: "absent",
  // Fallbacks: only an active schedule is removed or fires; every define is checked first.
  on: {
    "schedule.remove": { actions: { type: "refuse", params: { refusal: "not-found" } } },
    "schedule.fire": { actions: { type: "refuse", params: { refusal: "not-found" } } },
  },
  states: {
    absent: {
      on: {
        "schedule.define": [...DEFINITION_CHECKS, { target: "active", actions: "add" }],
      },
    },
    active: {
      on: {
        "schedule.define": [
          ...DEFINITION_CHECKS,
          { guard: "unchanged", actions: { type: "refuse", params: { refusal: "unchanged" } } },
          { target: "active", reenter: true, actions: "update" },
        ],
        "schedule.remove": { target: "removed", actions: "remove" },
        "schedule.fire": [
          { guard: not("afterLastSlot"), actions: { type: "refuse", params: { refusal: "already-fired" } } },
          { guard: not("slotDue"), actions: { type: "refuse", params: { refusal: "not-due" } } },
          { guard: not("isSlot"), actions: { type: "refuse", params: { refusal: "not-a-slot" } } },
          { actions: "fire" },
        ],
      },
    },
    removed: {
      on: {
        "schedule.define": [...DEFINITION_CHECKS, { target: "active", actions: "add" }],
      },
    },
  },
});

/** The machine's type, for variants built with `scheduleMachine.provide(...)`. */
export type ScheduleMachine = typeof scheduleMachine;
