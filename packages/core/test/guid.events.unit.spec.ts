import { describe, expect, it } from "vitest";
import { decideGuid, guidCommands, guidEvents, type GuidCommand, type GuidDecision, type LedgerEntry } from "../src/index.ts";
import { ANSWER, FINGERPRINT, entryIn } from "./guid-fixtures.ts";

const events = (decision: GuidDecision) => {
  if (!decision.accepted) throw new Error(`refused: ${decision.refusal}`);
  return decision.events;
};
const decide = (entry: LedgerEntry, command: GuidCommand) => events(decideGuid(entry, command));
const answered = { kind: "answered", code: "0000", response: ANSWER } as const;

describe("guidMachine: the facts each transition records", () => {
  it("a send says which attempt and who sent it: the claimer, a channel resend or an operator's reprocess", () => {
    expect(decide(entryIn("RECEIVED"), guidCommands.send({ now: 2_000 }))).toEqual([
      guidEvents.sent({ attempt: 1, by: "claim", at: 2_000 }),
    ]);
    const failed = entryIn("FAILED", { attempts: 2 });
    expect(decide(failed, guidCommands.repeat({ fingerprint: FINGERPRINT, maxAttempts: 5, now: 3_000 }))).toEqual([
      guidEvents.sent({ attempt: 3, by: "channel", at: 3_000 }),
    ]);
    expect(decide(failed, guidCommands.reprocess({ maxAttempts: 5, now: 4_000 }))).toEqual([
      guidEvents.sent({ attempt: 3, by: "reprocess", at: 4_000 }),
    ]);
  });

  it("a definite answer is done via the answer, or via the inquiry", () => {
    expect(decide(entryIn("SENT"), guidCommands.record({ attempt: 1, outcome: answered, now: 2_000 }))).toEqual([
      guidEvents.done({ code: "0000", response: ANSWER, via: "answer", at: 2_000 }),
    ]);
    const found = { kind: "found", code: "B201", response: "{}" } as const;
    expect(decide(entryIn("UNKNOWN"), guidCommands.resolve({ answer: found, minAgeMs: 100, now: 5_000 }))).toEqual([
      guidEvents.done({ code: "B201", response: "{}", via: "inquiry", at: 5_000 }),
    ]);
  });

  it("an entry is lost for no answer, an invalid answer, or a recovery of a send in flight", () => {
    const sent = entryIn("SENT");
    expect(decide(sent, guidCommands.record({ attempt: 1, outcome: { kind: "no-answer" }, now: 2_000 }))).toEqual([
      guidEvents.unknown({ reason: "no-answer", at: 2_000 }),
    ]);
    expect(decide(sent, guidCommands.record({ attempt: 1, outcome: { kind: "invalid-answer" }, now: 2_000 }))).toEqual([
      guidEvents.unknown({ reason: "invalid-answer", at: 2_000 }),
    ]);
    expect(decide(sent, guidCommands.recover({ olderThanMs: 100, now: 9_000 }))).toEqual([
      guidEvents.unknown({ reason: "recovered", at: 9_000 }),
    ]);
  });

  it("an entry fails when certainly not sent, not found by the inquiry, or recovered before it was sent", () => {
    expect(decide(entryIn("SENT"), guidCommands.record({ attempt: 1, outcome: { kind: "not-sent" }, now: 2_000 }))).toEqual([
      guidEvents.failed({ reason: "not-sent", at: 2_000 }),
    ]);
    const notFound = { kind: "not-found" } as const;
    expect(decide(entryIn("UNKNOWN"), guidCommands.resolve({ answer: notFound, minAgeMs: 100, now: 5_000 }))).toEqual([
      guidEvents.failed({ reason: "not-found", at: 5_000 }),
    ]);
    expect(decide(entryIn("RECEIVED"), guidCommands.recover({ olderThanMs: 100, now: 9_000 }))).toEqual([
      guidEvents.failed({ reason: "recovered", at: 9_000 }),
    ]);
  });

  it("a purge records its retention and resend window", () => {
    expect(decide(entryIn("DONE"), guidCommands.purge({ retentionMs: 500, resendWindowMs: 400, now: 9_000 }))).toEqual([
      guidEvents.purged({ retentionMs: 500, resendWindowMs: 400, at: 9_000 }),
    ]);
  });
});
