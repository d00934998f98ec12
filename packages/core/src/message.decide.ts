import type { MessageCommand } from "./message.commands.ts";
import { createInertScope } from "./machine-scope.ts";
import type { MessageEvent } from "./message.events.ts";
import { messageMachine, type MessageMachine, type MessageRefusal } from "./message.machine.ts";
import { newMessage, type Message } from "./message.types.ts";

/**
 * What the machine decided for one or more commands: either the events to append, in order,
 * with `message` their fold onto the message decided on; or the first refusal, with
 * `command` the type of the command refused, and nothing to write.
 */
export type MessageDecision =
  | { readonly accepted: true; readonly message: Message; readonly events: readonly MessageEvent[] }
  | { readonly accepted: false; readonly refusal: MessageRefusal; readonly command: MessageCommand["type"] };

/**
 * Decides commands, in order, against one message. Pure: no I/O, no clock, no randomness.
 * Either every command is accepted (their events, in order, and the message they fold to) or
 * the first refusal is returned and nothing is.
 */
export type MessageDecider = (message: Message, ...commands: readonly MessageCommand[]) => MessageDecision;

/**
 * Builds a decider over `machine` (the real {@link messageMachine} unless a test passes a
 * variant made with `messageMachine.provide(...)`).
 *
 * Like the job decider, it calls the machine's own pure `transition` with one reused inert
 * actor scope and rebuilds the snapshot from the message with `resolveState`, so the machine,
 * not the caller, holds every rule.
 */
export function createMessageDecider(machine: MessageMachine = messageMachine): MessageDecider {
  const scope = createInertScope(machine, newMessage("placeholder", "placeholder.json", 0));
  return (message, ...commands) => {
    let current = message;
    const events: MessageEvent[] = [];
    for (const command of commands) {
      const snapshot = machine.resolveState({ value: current.state, context: { message: current, emitted: [], refusal: null } });
      const next = machine.transition(snapshot, command, scope);
      if (next.context.refusal !== null) return { accepted: false, refusal: next.context.refusal, command: command.type };
      if (next === snapshot || next.context.emitted.length === 0)
        return { accepted: false, refusal: "unhandled", command: command.type };
      if (next.value !== next.context.message.state) {
        throw new Error(`message machine ended in ${String(next.value)} but its events fold to ${next.context.message.state}`);
      }
      current = next.context.message;
      events.push(...next.context.emitted);
    }
    return { accepted: true, message: current, events };
  };
}

/**
 * The decider over the real message machine, which the file ledger uses unless a test passes
 * a variant.
 *
 * @example
 * // A file found back in the inbox after error/: record the move it had not seen, then the claim.
 * const decision = decideMessage(
 *   message,
 *   messageCommands.replay({ file, by: "observed", now }),
 *   messageCommands.claim({ claimId, owner, file, recovered: false, now }),
 * ); // both events, or the first refusal and none
 */
export const decideMessage: MessageDecider = createMessageDecider();
