import {
  createGuidDecider,
  createJobDecider,
  createMessageDecider,
  guidMachine,
  jobMachine,
  messageMachine,
  newGuidEntry,
  newJob,
  newMessage,
} from "@verq/core";
import type { SearchOptions } from "../fc-config.ts";
import type { RunSummary } from "../property-failure.ts";
import { creations, guidCommand, jobCommand, messageCommand } from "./table-commands.ts";
import { runTableEquivalence } from "./run-table.ts";

/**
 * The states an accepted decision can end in: every state but the initial one and, for the message
 * machine, `processing`, which a settle passes through and always leaves in the same decision.
 */
const statesOf = (machine: { root: { states: Record<string, unknown> } }, ...passedThrough: string[]) =>
  Object.keys(machine.root.states).filter((s) => !passedThrough.includes(s));

/** Each machine with its compiled table, XState's interpreter over it, and the commands that drive it. */
export const TABLE_MACHINES = {
  job: {
    initial: newJob("j1"),
    command: jobCommand,
    states: statesOf(jobMachine, "new"),
    table: createJobDecider(),
    reference: createJobDecider(jobMachine, "xstate"),
  },
  guid: {
    initial: newGuidEntry("G-1"),
    command: guidCommand,
    states: statesOf(guidMachine, "NEW"),
    table: createGuidDecider(),
    reference: createGuidDecider(guidMachine, "xstate"),
  },
  message: {
    initial: newMessage("c1"),
    command: messageCommand,
    states: statesOf(messageMachine, "new", "processing"),
    table: createMessageDecider(),
    reference: createMessageDecider(messageMachine, "xstate"),
  },
} as const;

/** `job`, `guid`, `message`. */
export type TableKind = keyof typeof TABLE_MACHINES;

/** Every machine with a compiled table. */
export const TABLE_KINDS = Object.keys(TABLE_MACHINES) as TableKind[];

/**
 * The equivalence property of the `kind` machine's table with XState (see
 * `runTableEquivalence`), with `candidate` in place of the compiled table when given (a mutant).
 */
export function runTable(kind: TableKind, name: string, search: SearchOptions, candidate?: unknown): Promise<RunSummary> {
  const m = TABLE_MACHINES[kind];
  return runTableEquivalence({
    name,
    candidate: (candidate ?? m.table) as never,
    reference: m.reference as never,
    initial: m.initial as never,
    command: m.command as never,
    creation: creations[kind] as never,
    states: m.states,
    ...search,
  });
}
