import type { GuidCommand } from "./guid.commands.ts";
import { createInertScope } from "./machine-scope.ts";
import type { GuidEvent } from "./guid.events.ts";
import { guidMachine, type GuidMachine, type GuidRefusal } from "./guid.machine.ts";
import type { LedgerEntry } from "./guid.types.ts";

/**
 * What the machine decided for one command: either the events to record, in order, with
 * `entry` the fold of those events onto the entry decided on; or a refusal, with nothing to
 * write (for a channel repeat, the refusal is the answer: see {@link GuidRefusal}).
 */
export type GuidDecision =
  | { readonly accepted: true; readonly entry: LedgerEntry; readonly events: readonly GuidEvent[] }
  | { readonly accepted: false; readonly refusal: GuidRefusal };

/** Decides one command against one ledger entry. Pure: no I/O, no clock, no randomness. */
export type GuidDecider = (entry: LedgerEntry, command: GuidCommand) => GuidDecision;

/**
 * Builds a decider over `machine` (the real {@link guidMachine} unless a test passes a variant
 * made with `guidMachine.provide(...)`).
 *
 * Like the job decider, it calls the machine's own pure `transition` with one reused inert
 * actor scope, and rebuilds the snapshot from the entry with `resolveState`, so the machine,
 * not the caller, holds every rule. The entry returned is the fold of the emitted events.
 */
export function createGuidDecider(machine: GuidMachine = guidMachine): GuidDecider {
  const scope = createInertScope(machine, placeholderEntry);
  return (entry, command) => {
    const snapshot = machine.resolveState({ value: entry.state, context: { entry, emitted: [], refusal: null } });
    const next = machine.transition(snapshot, command, scope);
    if (next.context.refusal !== null) return { accepted: false, refusal: next.context.refusal };
    if (next === snapshot || next.context.emitted.length === 0) return { accepted: false, refusal: "unhandled" };
    return { accepted: true, entry: next.context.entry, events: next.context.emitted };
  };
}

const placeholderEntry: LedgerEntry = {
  guid: "placeholder",
  state: "RECEIVED",
  code: "E903",
  request: "{}",
  response: null,
  fingerprint: "",
  attempts: 0,
  createdAt: 0,
  updatedAt: 0,
  version: 1,
};

/**
 * The decider over the real guid machine, which the ledger uses unless a test passes a variant.
 *
 * @example
 * const decision = decideGuid(entry, guidCommands.repeat({ fingerprint, maxAttempts: 3, now }));
 * // DONE with the same fingerprint: { accepted: false, refusal: "replay" } → answer entry.response
 */
export const decideGuid: GuidDecider = createGuidDecider();
