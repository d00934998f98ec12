import { describe, expect, it } from "vitest";
import {
  GUID_EVENT_TYPES,
  JOB_EVENT_TYPES,
  MESSAGE_EVENT_TYPES,
  STREAM_MACHINES,
  STREAM_TYPES,
  VERQ_STREAM_DEFINITIONS,
  createJobDecider,
  decideGuid,
  decideJob,
  decideMessage,
  defineStream,
  defineVerqStream,
  guidStreamDefinition,
  isStreamDefinition,
  isVerqError,
  jobCommands,
  jobMachine,
  jobStreamDefinition,
  messageStreamDefinition,
  newJob,
} from "../src/index.ts";
import { ticketDeclaration } from "./ticket-stream.ts";

function codeOf(run: () => unknown): string | null {
  try {
    run();
  } catch (error) {
    return isVerqError(error) ? `${error.code}: ${error.message}` : String(error);
  }
  return null;
}

const NOW = 5_000;
const enqueue = jobCommands.enqueue({
  payload: { quantity: 7 },
  maxAttempts: 3,
  deadline: NOW + 60_000,
  availableAt: NOW,
  orderingKey: null,
  now: NOW,
});

describe("a stream type's commands are the events its machine takes", () => {
  it("are every event the machine takes when none are declared", () => {
    const { commands: _declared, ...rest } = ticketDeclaration;
    expect([...defineStream(rest).commandTypes].sort()).toEqual(["close", "open", "take"]);
  });

  it("refuses a declared command that no transition of the machine takes", () => {
    expect(codeOf(() => defineStream({ ...ticketDeclaration, commands: ["open", "reopen"] }))).toMatch(
      /^VERQ_INVALID_STREAM: stream type "ticket": command "reopen" is taken by no transition of its machine/,
    );
  });
});

describe("verq's own streams are declared through the path a service's take", () => {
  it("has a definition for each stream type a machine of its own decides, over that machine", () => {
    const decided = STREAM_TYPES.filter((type) => "machine" in STREAM_MACHINES[type]);
    expect(Object.keys(VERQ_STREAM_DEFINITIONS).sort()).toEqual([...decided].sort());
    for (const [type, definition] of Object.entries(VERQ_STREAM_DEFINITIONS)) {
      expect(definition.name).toBe(type);
      expect(isStreamDefinition(definition)).toBe(true);
      expect(definition.machine.id).toBe((STREAM_MACHINES[type as keyof typeof STREAM_MACHINES] as { machine: string }).machine);
      expect([...definition.commandTypes].sort()).toEqual([...(definition.machine.root.events as string[])].sort());
    }
  });

  it("keeps every event of the job, GUID and file message streams at schema version 1", () => {
    const cases = [
      [jobStreamDefinition, JOB_EVENT_TYPES],
      [guidStreamDefinition, GUID_EVENT_TYPES],
      [messageStreamDefinition, MESSAGE_EVENT_TYPES],
    ] as const;
    for (const [definition, types] of cases) {
      for (const type of types) expect(definition.schemaVersion(type), type).toBe(1);
    }
  });

  it("decides with each definition's own decider, and its public decide gives the same events", () => {
    expect(decideJob).toBe(jobStreamDefinition.decider);
    expect(decideMessage).toBe(messageStreamDefinition.decider);
    // The ledger's decider adds its one rule (an accepted decision is never NEW) around the definition's.
    expect(decideGuid).not.toBe(guidStreamDefinition.decider);
    const direct = decideJob(newJob("a"), enqueue);
    const declared = jobStreamDefinition.decide(jobStreamDefinition.initial("a"), NOW, enqueue);
    if (!direct.accepted || !declared.accepted) throw new Error("refused");
    expect(declared.events).toEqual(direct.events);
    expect(declared.after).toEqual({ id: "a", version: 1, state: "pending", value: direct.after });
  });

  it("builds a variant's decider through the same checks: a machine variant decides as the variant", () => {
    const enqueued = decideJob(newJob("a"), enqueue);
    if (!enqueued.accepted) throw new Error("refused");
    const claim = jobCommands.claim({ owner: "w", leaseMs: 100, now: NOW });
    const variant = jobMachine.provide({ guards: { kindNotHandled: () => true } });
    expect(createJobDecider(variant)(enqueued.after, claim)).toMatchObject({ accepted: false, command: "job.claim" });
    expect(createJobDecider(jobMachine)(enqueued.after, claim).accepted).toBe(true);
  });

  it("refuses a name that is not one of verq's own, as defineStream refuses one that is", () => {
    expect(
      codeOf(() =>
        defineVerqStream({
          name: "jobs",
          machine: jobMachine,
          field: "job",
          initial: (id: string) => newJob(id),
          evolve: (job) => job,
          unhandled: "not-claimable",
        }),
      ),
    ).toMatch(/^VERQ_INVALID_STREAM: stream type "jobs" is not one of verq's own/);
  });
});
