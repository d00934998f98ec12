import { createMachineDecider, type Decider, type Decision, type MachineExecution } from "./decider.ts";
import type { MessageCommand } from "./message.commands.ts";
import type { MessageEvent } from "./message.events.ts";
import { messageMachine, type MessageMachine, type MessageRefusal } from "./message.machine.ts";
import { newMessage, type Message } from "./message.types.ts";

/** What the message machine decided: the events and the message they fold to, or the first refusal (see {@link Decision}). */
export type MessageDecision = Decision<Message, MessageEvent, MessageRefusal, MessageCommand["type"]>;

/**
 * Decides commands, in order, against one message through the message machine (see
 * {@link Decider}): every command accepted, or the first refusal and nothing.
 */
export type MessageDecider = Decider<Message, MessageCommand, MessageEvent, MessageRefusal>;

/**
 * Builds a decider over `machine` (the real {@link messageMachine} unless a test passes a
 * variant made with `messageMachine.provide(...)`), on the one command path of
 * {@link createMachineDecider}.
 */
export function createMessageDecider(
  machine: MessageMachine = messageMachine,
  execution: MachineExecution = "table",
): MessageDecider {
  return createMachineDecider({ machine, field: "message", placeholder: newMessage("placeholder") }, "unhandled", execution);
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
export const decideMessage: MessageDecider = createMessageDecider();
