import { createMachineDecider, type Decider, type Decision } from "./decider.ts";
import type { GuidCommand } from "./guid.commands.ts";
import type { GuidEvent } from "./guid.events.ts";
import { guidMachine, type GuidMachine, type GuidRefusal } from "./guid.machine.ts";
import type { LedgerEntry } from "./guid.types.ts";

/**
 * What the guid machine decided: the events and the entry they fold to, or a refusal (for a
 * channel repeat, the refusal is the answer: see {@link GuidRefusal}). See {@link Decision}.
 */
export type GuidDecision = Decision<LedgerEntry, GuidEvent, GuidRefusal, GuidCommand["type"]>;

/** Decides commands against one ledger entry through the guid machine (see {@link Decider}). */
export type GuidDecider = Decider<LedgerEntry, GuidCommand, GuidEvent, GuidRefusal>;

/**
 * Builds a decider over `machine` (the real {@link guidMachine} unless a test passes a variant
 * made with `guidMachine.provide(...)`), on the one command path of {@link createMachineDecider},
 * which also checks that the entry the events fold to is in the state the machine ended in.
 */
export function createGuidDecider(machine: GuidMachine = guidMachine): GuidDecider {
  return createMachineDecider({ machine, field: "entry", placeholder: placeholderEntry }, "unhandled");
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
