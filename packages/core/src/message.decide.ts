import type { Decider, Decision, MachineExecution } from "./decider.ts";
import type { MessageCommand } from "./message.commands.ts";
import { MESSAGE_STREAM, type MessageEvent } from "./message.events.ts";
import { evolveMessage } from "./message.evolve.ts";
import { messageMachine, type MessageMachine, type MessageRefusal } from "./message.machine.ts";
import { newMessage, type Message } from "./message.types.ts";
import { defineVerqStream, type StreamDefinition } from "./stream-definition.ts";

/** What the message machine decided: the events and the message they fold to, or the first refusal (see {@link Decision}). */
export type MessageDecision = Decision<Message, MessageEvent, MessageRefusal, MessageCommand["type"]>;

/**
 * Decides commands, in order, against one message through the message machine (see
 * {@link Decider}): every command accepted, or the first refusal and nothing.
 */
export type MessageDecider = Decider<Message, MessageCommand, MessageEvent, MessageRefusal>;

/** The file message stream as verq declares it: the same parts and checks as a service's `defineStream`. */
export type MessageStreamDefinition = StreamDefinition<Message, MessageRefusal, MessageCommand, MessageEvent>;

/**
 * Declares the file message stream over `machine` (the real {@link messageMachine} unless a test passes a
 * variant), through the path every stream type is declared by.
 */
export function defineMessageStream(
  machine: MessageMachine = messageMachine,
  execution: MachineExecution = "table",
): MessageStreamDefinition {
  return defineVerqStream<Message, MessageRefusal, MessageCommand, MessageEvent>({
    name: MESSAGE_STREAM,
    machine,
    field: "message",
    initial: newMessage,
    evolve: evolveMessage,
    unhandled: "unhandled",
    execution,
  });
}

/** The file message stream's definition over the real machine: what the store, `verq events` and the checks read it by. */
export const messageStreamDefinition: MessageStreamDefinition = defineMessageStream();

/**
 * Builds a decider over `machine` (the real {@link messageMachine} unless a test passes a
 * variant made with `messageMachine.provide(...)`), the decider of its
 * stream definition.
 */
export function createMessageDecider(
  machine: MessageMachine = messageMachine,
  execution: MachineExecution = "table",
): MessageDecider {
  return defineMessageStream(machine, execution).decider;
}

/**
 * The decider over the real message machine, which the file ledger uses unless a test passes
 * a variant.
 *
 * @example
 * // A new file, valid, whose row went into `processed`: its claim and its record, or a refusal.
 * const decision = decideMessage(
 *   newMessage(claimId),
 *   messageCommands.settle({ claimId, owner, file, recovered: false, verdict: { kind: "valid", inserted: true, ...row }, now }),
 * ); // { accepted: true, events: [message.claimed, message.recorded], after } or { accepted: false, refusal }
 */
export const decideMessage: MessageDecider = messageStreamDefinition.decider;
