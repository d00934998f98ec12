import { describe, expect, it } from "vitest";
import {
  decideMessage,
  foldMessage,
  messageCommands,
  messageErrorKind,
  messageMachine,
  newMessage,
  type Message,
  type MessageDecision,
  type MessageVerdictFacts,
} from "../src/index.ts";

function accepted(decision: MessageDecision): Message {
  if (!decision.accepted) throw new Error(`refused: ${decision.refusal}`);
  return decision.after;
}
const types = (decision: MessageDecision) => (decision.accepted ? decision.events.map((e) => e.type) : decision.refusal);

const valid = (inserted = true): MessageVerdictFacts => ({
  kind: "valid",
  inserted,
  key: "M1",
  group: "O-1",
  sequence: 1,
  amount: 5,
  message: "{}",
  file: "a.json",
});
const invalid = (reason: "parse" | "missing-field" = "parse"): MessageVerdictFacts => ({
  kind: "invalid",
  reason,
  detail: "not valid JSON",
  file: "a.json",
});
const settle = (m: Message, verdict: MessageVerdictFacts, claimId = "c1", file = "a.json", now = 1_001) =>
  decideMessage(m, messageCommands.settle({ claimId, owner: "7@host", file, recovered: false, verdict, now }));
const replay = (m: Message) => decideMessage(m, messageCommands.replay({ file: "a.json", now: 1_003 }));
const fresh = (id = "c1") => newMessage(id);

describe("messageMachine (pure decisions)", () => {
  it("creation is a transition: a new stream is opened under its first claim's id and a plain file name", () => {
    expect(fresh()).toMatchObject({ state: "new", version: 0, file: "" });
    const created = settle(fresh(), valid());
    expect(types(created)).toEqual(["message.claimed", "message.recorded"]);
    expect(accepted(created)).toMatchObject({ id: "c1", file: "a.json", createdAt: 1_001, claims: 1, version: 2 });
    expect(settle(fresh("c1"), valid(), "c2")).toEqual({
      accepted: false,
      refusal: "stream-id-mismatch",
      command: "message.settle",
    });
    for (const file of ["", ".", "..", "in/a.json", "a\0.json"]) {
      expect(settle(fresh(), valid(), "c1", file)).toEqual({
        accepted: false,
        refusal: "bad-file-name",
        command: "message.settle",
      });
    }
  });

  it("F1/F3: one settle claims and decides the outcome from the processed insert: recorded or duplicate", () => {
    expect(accepted(settle(fresh(), valid(true)))).toMatchObject({ state: "done", outcome: "recorded", key: "M1" });
    const dup = settle(fresh(), valid(false));
    expect(types(dup)).toEqual(["message.claimed", "message.duplicated"]);
    expect(accepted(dup)).toMatchObject({ state: "done", outcome: "duplicate", claimId: "c1", owner: "7@host" });
  });

  it("F2/F8: a rejection goes to error with its reason; a replay brings it back; the next settle claims it again", () => {
    const failed = accepted(settle(fresh(), invalid()));
    expect(failed).toMatchObject({ state: "error", reason: "parse", detail: "not valid JSON" });
    const back = accepted(replay(failed));
    expect(back).toMatchObject({ state: "inbox", reason: null, detail: null, replays: 1 });
    const again = settle(back, valid(), "c2");
    expect(types(again)).toEqual(["message.claimed", "message.recorded"]);
    expect(accepted(again)).toMatchObject({ state: "done", claimId: "c2", claims: 2 });
    expect(settle(back, valid(), "c2", "b.json")).toEqual({ accepted: false, refusal: "other-file", command: "message.settle" });
  });

  it("F8: a file found back in the inbox after error/ records the move it had not seen, then its claim and outcome", () => {
    const failed = accepted(settle(fresh(), invalid()));
    const observed = settle(failed, valid(), "c2");
    expect(types(observed)).toEqual(["message.replayed", "message.claimed", "message.recorded"]);
    expect(accepted(observed)).toMatchObject({ state: "done", replays: 1, claims: 2 });
    expect(observed.accepted && observed.events[0]?.data).toMatchObject({ by: "observed" });
  });

  it("F3: the claim that settled a message is answered already-settled; another claim of a finished one is refused", () => {
    const done = accepted(settle(fresh(), valid()));
    expect(settle(done, valid())).toEqual({ accepted: false, refusal: "already-settled", command: "message.settle" });
    expect(settle(done, valid(), "c2")).toEqual({ accepted: false, refusal: "already-done", command: "message.settle" });
    const failed = accepted(settle(fresh(), invalid()));
    expect(settle(failed, invalid())).toEqual({ accepted: false, refusal: "already-settled", command: "message.settle" });
    expect(replay(done)).toEqual({ accepted: false, refusal: "not-in-error", command: "message.replay" });
    expect(replay(fresh())).toEqual({ accepted: false, refusal: "not-in-error", command: "message.replay" });
    const back = accepted(replay(failed));
    expect(replay(back)).toEqual({ accepted: false, refusal: "not-in-error", command: "message.replay" });
    const inWork: Message = { ...fresh(), state: "processing", file: "a.json", claimId: "c1", claims: 1, version: 1 };
    expect(replay(inWork)).toEqual({ accepted: false, refusal: "not-in-error", command: "message.replay" });
  });

  it("F8: a file in error/ is claimed again only under its own name; another file's claim is refused, with nothing", () => {
    const failed = accepted(settle(fresh(), invalid()));
    expect(settle(failed, valid(), "c2", "b.json")).toEqual({
      accepted: false,
      refusal: "other-file",
      command: "message.settle",
    });
    expect(types(settle(failed, valid(), "c2", "a.json"))).toEqual(["message.replayed", "message.claimed", "message.recorded"]);
  });

  it("F3: only the current claim settles a message in work; a stale claim is refused", () => {
    const inWork: Message = { ...fresh(), state: "processing", file: "a.json", claimId: "c1", claims: 1, version: 1 };
    expect(settle(inWork, valid(), "c0")).toEqual({ accepted: false, refusal: "stale-claim", command: "message.settle" });
    const settled = settle(inWork, valid(false));
    expect(types(settled)).toEqual(["message.duplicated"]);
    expect(accepted(settled)).toMatchObject({ state: "done", version: 2 });
  });

  it("F5: an unknown reason is refused, with nothing; reasons are classed as format, business or processing", () => {
    expect(settle(fresh(), { kind: "invalid", reason: "boom" as "parse", detail: "", file: "a.json" })).toEqual({
      accepted: false,
      refusal: "unknown-reason",
      command: "message.settle",
    });
    expect(
      ["parse", "too-large", "missing-field", "invalid-field", "handler"].map((r) => messageErrorKind(r as "parse")),
    ).toEqual(["format", "format", "business", "business", "processing"]);
  });

  it("F3: several commands decide as one: all their events, or the first refusal and nothing", () => {
    const failed = accepted(settle(fresh(), invalid()));
    const both = decideMessage(
      failed,
      messageCommands.replay({ file: "a.json", now: 5 }),
      messageCommands.settle({ claimId: "c2", owner: "8@host", file: "a.json", recovered: false, verdict: valid(), now: 5 }),
    );
    expect(types(both)).toEqual(["message.replayed", "message.claimed", "message.recorded"]);
    const refused = decideMessage(
      failed,
      messageCommands.settle({ claimId: "c2", owner: "8@host", file: "a.json", recovered: false, verdict: valid(), now: 5 }),
      messageCommands.replay({ file: "a.json", now: 5 }),
    );
    expect(refused).toEqual({ accepted: false, refusal: "not-in-error", command: "message.replay" });
  });

  it("F3: the message is the fold of its events, from the new stream", () => {
    const first = settle(fresh(), invalid());
    const back = replay(accepted(first));
    const again = settle(accepted(back), valid(), "c2");
    if (!first.accepted || !back.accepted || !again.accepted) throw new Error("refused");
    expect(foldMessage("c1", [...first.events, ...back.events, ...again.events])).toEqual(again.after);
    expect(foldMessage("c1", [])).toBeNull();
  });

  it("F1/F2/F8: one static machine with its five states (what the Stately editor reads)", () => {
    expect(Object.keys(messageMachine.config.states ?? {})).toEqual(["new", "inbox", "processing", "done", "error"]);
    expect(messageMachine.toJSON()).toMatchObject({ id: "message" });
  });
});
