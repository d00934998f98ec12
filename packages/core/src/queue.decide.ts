import { createMachineDecider, type Decider, type Decision, type MachineExecution } from "./decider.ts";
import type { QueueCommand } from "./queue.commands.ts";
import type { QueueEvent } from "./queue.events.ts";
import { queueMachine, type QueueMachine, type QueueRefusal } from "./queue.machine.ts";
import { newQueue, type QueueSettings } from "./queue.types.ts";

/** What the queue machine decided: the events and the settings they fold to, or the refusal (see {@link Decision}). */
export type QueueDecision = Decision<QueueSettings, QueueEvent, QueueRefusal, QueueCommand["type"]>;

/** Decides commands, in order, against one queue's settings through the queue machine (see {@link Decider}). */
export type QueueDecider = Decider<QueueSettings, QueueCommand, QueueEvent, QueueRefusal>;

/** Builds a decider over `machine` (the real {@link queueMachine} unless a test passes a variant). */
export function createQueueDecider(machine: QueueMachine = queueMachine, execution: MachineExecution = "table"): QueueDecider {
  return createMachineDecider({ machine, field: "queue", placeholder: newQueue("placeholder") }, "unhandled", execution);
}

/**
 * The decider over the real queue machine, which the store's `setQueueLimit` uses.
 *
 * @example
 * const decision = decideQueue(newQueue("emails"), queueCommands.setLimit({ maxLeased: 5, now }));
 * if (decision.accepted) append(decision.events);
 */
export const decideQueue: QueueDecider = createQueueDecider();
