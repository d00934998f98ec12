import { assign, setup } from "xstate";
import type { QueueCommand } from "./queue.commands.ts";
import { evolveQueue } from "./queue.evolve.ts";
import { queueEvents, type QueueEvent } from "./queue.events.ts";
import type { QueueSettings } from "./queue.types.ts";

/**
 * Why the machine refused a command: `unchanged` (the queue already has that limit), or
 * `unhandled` when no transition took it. Refusals are data; nothing is written.
 */
export type QueueRefusal = "unchanged" | "unhandled";

/** The machine's context: the queue's settings, the events a transition emitted, and a refusal if any. */
export interface QueueMachineContext {
  readonly queue: QueueSettings;
  readonly emitted: readonly QueueEvent[];
  readonly refusal: QueueRefusal | null;
}

/**
 * A queue's global concurrency limit: unlimited ⇄ limited by `queue.setLimit`, and limited →
 * limited for a new value. Setting the limit a queue already has is refused as `unchanged`, so
 * every `queue.limitSet` in the log is a change. The limit itself is enforced by the job
 * machine's `queueFull` guard at each claim; this machine only records it.
 */
export const queueMachine = setup({
  types: {
    context: {} as QueueMachineContext,
    events: {} as QueueCommand,
    input: {} as QueueSettings,
  },
  guards: {
    sameLimit: ({ context, event }) => event.maxLeased === context.queue.maxLeased,
    removesLimit: ({ event }) => event.maxLeased === null,
  },
  actions: {
    refuse: assign((_, params: { refusal: QueueRefusal }) => ({ refusal: params.refusal })),
    setLimit: assign(({ context, event }) => {
      const limitSet = queueEvents.limitSet({ maxLeased: event.maxLeased, at: event.now });
      return { queue: evolveQueue(context.queue, limitSet), emitted: [...context.emitted, limitSet] };
    }),
  },
}).createMachine({
  id: "queue",
  context: ({ input }) => ({ queue: input, emitted: [], refusal: null }),
  initial: "unlimited",
  states: {
    unlimited: {
      on: {
        "queue.setLimit": [
          { guard: "removesLimit", actions: { type: "refuse", params: { refusal: "unchanged" } } },
          { target: "limited", actions: "setLimit" },
        ],
      },
    },
    limited: {
      on: {
        "queue.setLimit": [
          { guard: "sameLimit", actions: { type: "refuse", params: { refusal: "unchanged" } } },
          { guard: "removesLimit", target: "unlimited", actions: "setLimit" },
          { target: "limited", reenter: true, actions: "setLimit" },
        ],
      },
    },
  },
});

/** The machine's type, for variants built with `queueMachine.provide(...)`. */
export type QueueMachine = typeof queueMachine;
