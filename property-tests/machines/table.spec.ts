import { describe, expect, it } from "vitest";
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
import { creations, guidCommand, jobCommand, messageCommand } from "./table-commands.ts";
import { tableMutants } from "./mutants.ts";
import { runTableEquivalence } from "./run-table.ts";

/**
 * The states an accepted decision can end in: every state but the initial one and, for the message
 * machine, `processing`, which a settle passes through and always leaves in the same decision.
 */
const statesOf = (machine: { root: { states: Record<string, unknown> } }, ...passedThrough: string[]) =>
  Object.keys(machine.root.states).filter((s) => !passedThrough.includes(s));

const machines = {
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

type Kind = keyof typeof machines;
const KINDS = Object.keys(machines) as Kind[];

/**
 * The deciders step through a transition table compiled from each machine; this property holds
 * that table to XState's own interpreter over the same machine, command by command, from each
 * stream's first event on.
 */
describe("compiled transition tables decide as XState does", () => {
  it.each(KINDS)("the %s machine's table equals XState over random command sequences", (kind) => {
    const m = machines[kind];
    runTableEquivalence({
      name: `table-${kind}`,
      candidate: m.table as never,
      reference: m.reference as never,
      initial: m.initial as never,
      command: m.command as never,
      creation: creations[kind] as never,
      states: m.states,
      numRuns: 1_000,
    });
  });

  const mutants = KINDS.flatMap((kind) =>
    Object.entries(tableMutants[kind]).map(([name, decider]) => [kind, name, decider] as const),
  );
  it.each(mutants)("the %s property catches the mutant %s", (kind, name, decider) => {
    const m = machines[kind];
    expect(() =>
      runTableEquivalence({
        name: `table-mutant ${name}`,
        candidate: decider as never,
        reference: m.reference as never,
        initial: m.initial as never,
        command: m.command as never,
        creation: creations[kind] as never,
        states: m.states,
        numRuns: 1_000,
      }),
    ).toThrow(/\[table\]/);
  });
});
