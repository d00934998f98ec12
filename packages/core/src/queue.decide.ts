import type { Decider, Decision, MachineExecution } from "./decider.ts";
import type { QueueCommand } from "./queue.commands.ts";
import { QUEUE_STREAM, type QueueEvent } from "./queue.events.ts";
import { evolveQueue } from "./queue.evolve.ts";
import { queueMachine, type QueueMachine, type QueueRefusal } from "./queue.machine.ts";
import { newQueue, type QueueSettings } from "./queue.types.ts";
import { defineVerqStream, type StreamDefinition } from "./stream-definition.ts";

/** What the queue machine decided: the events and the settings they fold to, or the refusal (see {@link Decision}). */
export type QueueDecision = Decision<QueueSettings, QueueEvent, QueueRefusal, QueueCommand["type"]>;

/** Decides commands, in order, against one queue's settings through the queue machine (see {@link Decider}). */
export type QueueDecider = Decider<QueueSettings, QueueCommand, QueueEvent, QueueRefusal>;

/** The queue settings stream as verq declares it: the same parts and checks as a service's `defineStream`. */
export type QueueStreamDefinition = StreamDefinition<QueueSettings, QueueRefusal, QueueCommand, QueueEvent>;

/**
 * Declares the queue settings stream over `machine` (the real {@link queueMachine} unless a test passes a
 * variant), through the path every stream type is declared by.
 */
export function defineQueueStream(
  machine: QueueMachine = queueMachine,
  execution: MachineExecution = "table",
): QueueStreamDefinition {
  return defineVerqStream<QueueSettings, QueueRefusal, QueueCommand, QueueEvent>({
    name: QUEUE_STREAM,
    machine,
    field: "queue",
    initial: newQueue,
    evolve: evolveQueue,
    unhandled: "unhandled",
    execution,
  });
}

/** The queue settings stream's definition over the real machine: what the store, `verq events` and the checks read it by. */
export const queueStreamDefinition: QueueStreamDefinition = defineQueueStream();

/** Builds a decider over `machine` (the real {@link queueMachine} unless a test passes a variant). */
export function createQueueDecider(machine: QueueMachine = queueMachine, execution: MachineExecution = "table"): QueueDecider {
  return defineQueueStream(machine, execution).decider;
}

/**
 * The decider over the real queue machine, which the store's `setQueueLimit` uses.
 *
 * @example
 * const decision = decideQueue(newQueue("emails"), queueCommands.setLimit({ maxLeased: 5, now }));
 * if (decision.accepted) append(decision.events);
 */
export const decideQueue: QueueDecider = queueStreamDefinition.decider;
