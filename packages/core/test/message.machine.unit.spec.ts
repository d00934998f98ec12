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
} from "../src/index.ts";

function accepted(decision: MessageDecision): Message {
  if (!decision.accepted) throw new Error(`refused: ${decision.refusal}`);
  return decision.after;
}

const fresh = () => newMessage("c1", "a.json", 1_000);
const claim = (m: Message, claimId = "c1", now = 1_001) =>
  decideMessage(m, messageCommands.claim({ claimId, owner: "7@host", file: "a.json", recovered: false, now }));
const record = (m: Message, outcome: "recorded" | "duplicate" = "recorded", claimId = "c1") =>
  decideMessage(
    m,
    messageCommands.record({
      claimId,
      outcome,
      key: "M1",
      group: "O-1",
      sequence: 1,
      amount: 5,
      message: "{}",
      file: "a.json",
      now: 1_002,
    }),
  );
const reject = (m: Message, claimId = "c1", reason: "parse" | "missing-field" = "parse") =>
  decideMessage(m, messageCommands.reject({ claimId, reason, detail: "not valid JSON", file: "a.json", now: 1_002 }));
const replay = (m: Message) => decideMessage(m, messageCommands.replay({ file: "a.json", by: "command", now: 1_003 }));

describe("messageMachine (pure decisions)", () => {
  it("F1/F3: inbox → processing by a claim → done when recorded or stopped as a duplicate", () => {
    const claimed = accepted(claim(fresh()));
    expect(claimed).toMatchObject({ state: "processing", claimId: "c1", owner: "7@host", claims: 1, version: 1 });
    expect(accepted(record(claimed))).toMatchObject({ state: "done", outcome: "recorded", key: "M1", version: 2 });
    const dup = record(claimed, "duplicate");
    expect(accepted(dup)).toMatchObject({ state: "done", outcome: "duplicate" });
    expect(dup.accepted && dup.events.map((e) => e.type)).toEqual(["message.duplicated"]);
  });

  it("F2: processing → error with a reason; never back to the inbox by itself; error → inbox only by replay", () => {
    const failed = accepted(reject(accepted(claim(fresh()))));
    expect(failed).toMatchObject({ state: "error", reason: "parse", detail: "not valid JSON" });
    expect(claim(failed, "c2")).toEqual({ accepted: false, refusal: "in-error", command: "message.claim" });
    const back = accepted(replay(failed));
    expect(back).toMatchObject({ state: "inbox", reason: null, detail: null, replays: 1 });
    expect(accepted(claim(back, "c2"))).toMatchObject({ state: "processing", claimId: "c2", claims: 2 });
  });

  it("F3: only the current claim may finish a message; a finished message is never claimed again", () => {
    const claimed = accepted(claim(fresh()));
    expect(record(claimed, "recorded", "stale")).toEqual({ accepted: false, refusal: "stale-claim", command: "message.record" });
    expect(reject(claimed, "stale")).toEqual({ accepted: false, refusal: "stale-claim", command: "message.reject" });
    expect(claim(claimed, "c9")).toEqual({ accepted: false, refusal: "in-processing", command: "message.claim" });
    const done = accepted(record(claimed));
    expect(claim(done, "c2")).toEqual({ accepted: false, refusal: "already-done", command: "message.claim" });
    expect(replay(done)).toEqual({ accepted: false, refusal: "not-in-error", command: "message.replay" });
    expect(record(fresh())).toEqual({ accepted: false, refusal: "not-processing", command: "message.record" });
  });

  it("F5: an unknown reason is refused; reasons are classed as format, business or processing", () => {
    const claimed = accepted(claim(fresh()));
    const odd = decideMessage(
      claimed,
      messageCommands.reject({ claimId: "c1", reason: "boom" as "parse", detail: "", file: "a.json", now: 2 }),
    );
    expect(odd).toEqual({ accepted: false, refusal: "unknown-reason", command: "message.reject" });
    expect(
      ["parse", "too-large", "missing-field", "invalid-field", "handler"].map((r) => messageErrorKind(r as "parse")),
    ).toEqual(["format", "format", "business", "business", "processing"]);
  });

  it("F3: several commands decide as one: all their events, or the first refusal and nothing", () => {
    const failed = accepted(reject(accepted(claim(fresh()))));
    const both = decideMessage(
      failed,
      messageCommands.replay({ file: "a.json", by: "observed", now: 5 }),
      messageCommands.claim({ claimId: "c2", owner: "8@host", file: "a.json", recovered: false, now: 5 }),
    );
    expect(both.accepted && both.events.map((e) => e.type)).toEqual(["message.replayed", "message.claimed"]);
    const refused = decideMessage(
      failed,
      messageCommands.claim({ claimId: "c2", owner: "8@host", file: "a.json", recovered: false, now: 5 }),
      messageCommands.replay({ file: "a.json", by: "observed", now: 5 }),
    );
    expect(refused).toEqual({ accepted: false, refusal: "in-error", command: "message.claim" });
  });

  it("F3: the message is the fold of its events", () => {
    // A stream starts when it is first claimed: its creation time is that claim's.
    const c = claim(newMessage("c1", "a.json", 1_001));
    const r = record(accepted(c));
    if (!c.accepted || !r.accepted) throw new Error("refused");
    expect(foldMessage("c1", [...c.events, ...r.events])).toEqual(r.after);
    expect(foldMessage("c1", [])).toBeNull();
  });

  it("F1/F2/F8: one static machine with the four states (what the Stately editor reads)", () => {
    expect(Object.keys(messageMachine.config.states ?? {})).toEqual(["inbox", "processing", "done", "error"]);
    expect(messageMachine.toJSON()).toMatchObject({ id: "message" });
  });
});
