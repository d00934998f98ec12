import type { Decision, MachineExecution } from "./decider.ts";
import type { GuidCommand } from "./guid.commands.ts";
import { GUID_STREAM, type GuidEvent } from "./guid.events.ts";
import { evolveGuid } from "./guid.evolve.ts";
import { guidMachine, type GuidMachine, type GuidRefusal } from "./guid.machine.ts";
import { newGuidEntry, type GuidEntry, type LedgerEntry } from "./guid.types.ts";
import { defineVerqStream, type StreamDefinition } from "./stream-definition.ts";

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

/** The GUID ledger's stream as verq declares it: the same parts and checks as a service's `defineStream`. */
export type GuidStreamDefinition = StreamDefinition<GuidEntry, GuidRefusal, GuidCommand, GuidEvent>;

/**
 * Declares the GUID stream over `machine` (the real {@link guidMachine} unless a test passes a
 * variant), through the path every stream type is declared by.
 */
export function defineGuidStream(
  machine: GuidMachine = guidMachine,
  execution: MachineExecution = "table",
): GuidStreamDefinition {
  return defineVerqStream<GuidEntry, GuidRefusal, GuidCommand, GuidEvent>({
    name: GUID_STREAM,
    machine,
    field: "entry",
    initial: newGuidEntry,
    evolve: evolveGuid,
    unhandled: "unhandled",
    execution,
  });
}

/** The GUID stream's definition over the real machine: what the store, `verq events` and the checks read it by. */
export const guidStreamDefinition: GuidStreamDefinition = defineGuidStream();

/**
 * Builds a decider over `machine` (the real {@link guidMachine} unless a test passes a variant
 * made with `guidMachine.provide(...)`), the decider of {@link defineGuidStream} (`execution`: see {@link MachineExecution}),
 * which also checks that the entry the events fold to is in the state the machine ended in.
 */
export function createGuidDecider(machine: GuidMachine = guidMachine, execution: MachineExecution = "table"): GuidDecider {
  const decide = defineGuidStream(machine, execution).decider;
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
