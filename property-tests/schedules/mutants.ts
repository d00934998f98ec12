import { assign } from "xstate";
import {
  createScheduleDecider,
  evolveSchedule,
  scheduleEvents,
  scheduleMachine,
  type ScheduleDecider,
  type ScheduleMachineContext,
} from "@verq/core";

const fired = (context: ScheduleMachineContext, slot: number, jobId: string, now: number): Partial<ScheduleMachineContext> => {
  const event = scheduleEvents.fired({ slot, jobId, firstMissed: null, at: now });
  return { schedule: evolveSchedule(context.schedule, event), emitted: [...context.emitted, event] };
};

/**
 * Deliberately broken schedule machines. Each breaks one rule the schedules property claims to
 * guard; `mutants.spec.ts` asserts that the property fails on every one of them.
 */
export const scheduleMutants: Readonly<Record<string, ScheduleDecider>> = {
  /**
   * The job id leaves the slot out: every slot after the first is the "same" job, and enqueue's
   * idempotency swallows it. Caught as: advance → runDue: "[policy] … the jobs enqueued are
   * schedule:every-minute; expected schedule:every-minute:2024-01-01T10:00:00.000Z …".
   */
  "job id without the slot": createScheduleDecider(
    scheduleMachine.provide({
      actions: {
        fire: assign(({ context, event }) =>
          event.type === "schedule.fire" ? fired(context, event.slot, `schedule:${context.schedule.name}`, event.now) : {},
        ),
      },
    }),
  ),
  /**
   * A slot already recorded may be fired again, under an id of the scheduler's instant: two
   * schedulers (or one, later) enqueue one slot twice. Caught as: "[slot once] slot … was
   * enqueued 2 times" or "[policy]".
   */
  "re-fire a recorded slot under another id": createScheduleDecider(
    scheduleMachine.provide({
      guards: { afterLastSlot: () => true },
      actions: {
        fire: assign(({ context, event }) =>
          event.type === "schedule.fire"
            ? fired(
                context,
                event.slot,
                `schedule:${context.schedule.name}:${new Date(event.slot).toISOString()}:${event.now}`,
                event.now,
              )
            : {},
        ),
      },
    }),
  ),
  /**
   * The boundary belongs to the past: a slot exactly at `now` is not due yet (`slot < now`).
   * Caught as: runDue exactly on a slot: "[policy] … expected schedule:every-minute:…".
   */
  "a slot exactly at now is not due": createScheduleDecider(
    scheduleMachine.provide({
      guards: {
        slotDue: ({ context, event }) =>
          event.type === "schedule.fire" && event.slot >= context.schedule.since && event.slot < event.now,
      },
    }),
  ),
};
