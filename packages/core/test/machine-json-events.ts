import type { EventObject } from "xstate";
import {
  guidCommands,
  jobCommands,
  lockCommands,
  messageCommands,
  newGuidEntry,
  newJob,
  newLock,
  newMessage,
  newQueue,
  newSchedule,
  queueCommands,
  scheduleCommands,
  type VerqMachineName,
} from "../src/index.ts";

/** What a run of one machine starts from and sends: its input, and one well-formed command per event type. */
export interface MachineRunFixture {
  readonly input: unknown;
  readonly events: Readonly<Record<string, EventObject>>;
}

const byType = (...events: EventObject[]): Record<string, EventObject> =>
  Object.fromEntries(events.map((event) => [event.type, event]));

const failure = { category: "retryable", errorClass: "Error", code: null, status: null } as const;

/**
 * For each of verq's machines, a blank stream's input and one command of every event type it
 * handles, each complete enough for the machine's actions to record its event in any state.
 * Which transition a command takes is left to the run (the guards' outcomes, or the real guards).
 */
export const MACHINE_RUN_FIXTURES: Readonly<Record<VerqMachineName, MachineRunFixture>> = {
  job: {
    input: newJob("j1"),
    events: byType(
      jobCommands.enqueue({ payload: { a: 1 }, maxAttempts: 2, deadline: 60_000, availableAt: 0, orderingKey: null, now: 0 }),
      jobCommands.claim({ owner: "w1", leaseMs: 1_000, now: 500 }),
      jobCommands.finish({ token: 1, outcome: "retry", retryDelayMs: 500, failure, now: 1_000 }),
      jobCommands.fail({ token: 1, failure, now: 1_000 }),
      jobCommands.heartbeat({ token: 1, leaseMs: 1_000, now: 1_000 }),
      jobCommands.redrive({
        note: "OPS-1",
        deadline: null,
        recentRedrives: 0,
        limit: { max: 2, windowMs: 1_000 },
        originalWindowMs: 60_000,
        now: 2_000,
      }),
      jobCommands.prune({ doneCutoff: 5_000, deadCutoff: 5_000, now: 6_000 }),
      jobCommands.cancel({ note: "OPS-2", now: 1_500 }),
    ),
  },
  guid: {
    input: newGuidEntry("G-1"),
    events: byType(
      guidCommands.receive({ guid: "G-1", request: "r1", fingerprint: "f1", now: 0 }),
      guidCommands.send({ now: 100 }),
      guidCommands.repeat({ fingerprint: "f1", maxAttempts: 3, now: 200 }),
      guidCommands.record({ attempt: 1, outcome: { kind: "answered", code: "0000", response: "ok" }, now: 300 }),
      guidCommands.resolve({ answer: { kind: "found", code: "0000", response: "ok" }, minAgeMs: 0, now: 400 }),
      guidCommands.reprocess({ maxAttempts: 3, now: 500 }),
      guidCommands.recover({ olderThanMs: 0, now: 600 }),
      guidCommands.purge({ retentionMs: 1_000, resendWindowMs: 500, now: 5_000 }),
    ),
  },
  message: {
    input: newMessage("c1"),
    events: byType(
      messageCommands.settle({
        claimId: "c1",
        owner: "1@h",
        file: "a.json",
        recovered: false,
        verdict: {
          kind: "valid",
          inserted: true,
          key: "M1",
          group: "O-1",
          sequence: 1,
          amount: 3,
          message: "{}",
          file: "a.json",
        },
        now: 100,
      }),
      messageCommands.replay({ file: "a.json", now: 200 }),
    ),
  },
  schedule: {
    input: newSchedule("nightly"),
    events: byType(
      scheduleCommands.define({
        definition: { cron: "0 * * * *", timezone: "UTC", payload: { n: 1 }, queue: "default" },
        now: 0,
      }),
      scheduleCommands.remove({ now: 100 }),
      scheduleCommands.fire({ slot: 3_600_000, firstMissed: null, now: 3_600_500 }),
    ),
  },
  queue: {
    input: newQueue("default"),
    events: byType(queueCommands.setLimit({ maxLeased: 2, now: 0 })),
  },
  lock: {
    input: newLock("bulk-redrive"),
    events: byType(
      lockCommands.acquire({ owner: "o1", leaseMs: 1_000, now: 0 }),
      lockCommands.heartbeat({ token: 1, leaseMs: 1_000, now: 500 }),
      lockCommands.release({ token: 1, now: 800 }),
    ),
  },
};
