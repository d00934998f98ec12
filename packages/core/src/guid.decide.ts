import { createMachineDecider, type Decision, type MachineExecution } from "./decider.ts";
import type { GuidCommand } from "./guid.commands.ts";
import type { GuidEvent } from "./guid.events.ts";
import { guidMachine, type GuidMachine, type GuidRefusal } from "./guid.machine.ts";
import { newGuidEntry, type GuidEntry, type LedgerEntry } from "./guid.types.ts";

/**
 * What the guid machine decided: the events and the entry they fold to (never NEW: an accepted
 * command writes at least one event), or a refusal (for a channel repeat, the refusal is the
 * answer: see {@link GuidRefusal}). See {@link Decision}.
 */
export type GuidDecision = Decision<LedgerEntry, GuidEvent, GuidRefusal, GuidCommand["type"]>;

/**
 * Decides commands against one GUID's entry, or its blank before the first event (see
 * {@link newGuidEntry}), through the guid machine: every command accepted, or the first refusal
 * and nothing (see `Decider`).
 */
export type GuidDecider = (entry: GuidEntry, ...commands: readonly GuidCommand[]) => GuidDecision;

/**
 * Builds a decider over `machine` (the real {@link guidMachine} unless a test passes a variant
 * made with `guidMachine.provide(...)`), on the one command path of {@link createMachineDecider} (`execution`: see {@link MachineExecution}),
 * which also checks that the entry the events fold to is in the state the machine ended in.
 */
export function createGuidDecider(machine: GuidMachine = guidMachine, execution: MachineExecution = "table"): GuidDecider {
  const decide = createMachineDecider<GuidMachine, GuidEntry>(
    { machine, field: "entry", placeholder: newGuidEntry("placeholder") },
    "unhandled",
    execution,
  );
  return (entry, ...commands) => {
    const decision = decide(entry, ...commands);
    if (!decision.accepted) return decision;
    const { after, events } = decision;
    if (after.state === "NEW") throw new Error(`nothing was decided for guid ${entry.guid}, which has no events`);
    return { accepted: true, after, events };
  };
}

/**
 * The decider over the real guid machine, which the ledger uses unless a test passes a variant.
 *
 * @example
 * const decision = decideGuid(entry, guidCommands.repeat({ fingerprint, maxAttempts: 3, now }));
 * // DONE with the same fingerprint: { accepted: false, refusal: "replay" } → answer entry.response
 * const claim = decideGuid(newGuidEntry(guid), guidCommands.receive({ guid, request, fingerprint, now }));
 * // { accepted: true, events: [guid.received], after: the RECEIVED entry }, or { accepted: false, refusal: "invalid-guid" }
 */
export const decideGuid: GuidDecider = createGuidDecider();
