import { assign } from "xstate";
import { describe, expect, it } from "vitest";
import {
  GUID_STATES,
  createGuidDecider,
  decideGuid,
  evolveGuid,
  foldGuid,
  guidEvents,
  guidCommands,
  guidMachine,
  newGuidEntry,
  type GuidCommand,
  type GuidDecision,
  type GuidEntry,
  type GuidEvent,
  type LedgerEntry,
} from "../src/index.ts";
import { createInertScope, type MachineScope } from "../src/machine-scope.ts";
import { ANSWER, FINGERPRINT, REQUEST, entryIn, historyIn } from "./guid-fixtures.ts";

const accepted = (decision: GuidDecision): LedgerEntry => {
  if (!decision.accepted) throw new Error(`refused: ${decision.refusal}`);
  return decision.after;
};
const refusal = (decision: GuidDecision) => (decision.accepted ? `accepted → ${decision.after.state}` : decision.refusal);
const repeat = (entry: LedgerEntry, options: { fingerprint?: string; maxAttempts?: number; now?: number } = {}) =>
  decideGuid(
    entry,
    guidCommands.repeat({
      fingerprint: options.fingerprint ?? FINGERPRINT,
      maxAttempts: options.maxAttempts ?? 5,
      now: options.now ?? 2_000,
    }),
  );
const answered = { kind: "answered", code: "0000", response: ANSWER } as const;

describe("guidMachine: the channel's first receipt creates the entry (SPEC G4)", () => {
  const receive = (guid: string, stream = guid) =>
    decideGuid(newGuidEntry(stream), guidCommands.receive({ guid, request: REQUEST, fingerprint: FINGERPRINT, now: 1_000 }));

  it("G4: a GUID with no events and a valid GUID → RECEIVED, its stream's first event, exactly the entry the fold gives", () => {
    const decision = receive("g-1");
    expect(decision.accepted && decision.events).toEqual([
      guidEvents.received({ guid: "g-1", request: REQUEST, fingerprint: FINGERPRINT, at: 1_000 }),
    ]);
    expect(accepted(decision)).toEqual(entryIn("RECEIVED"));
  });

  it("the id rule: a GUID that is not one is refused, and so is another GUID than the stream's", () => {
    for (const bad of ["", "a b", "-g", "g/1", "é", "g".repeat(129)]) expect(refusal(receive(bad)), bad).toBe("invalid-guid");
    expect(refusal(receive("g-1", "g-2"))).toBe("stream-id-mismatch");
  });

  it("a known GUID is not received again; a GUID with no events knows no other command", () => {
    for (const state of GUID_STATES) {
      const again = guidCommands.receive({ guid: "g-1", request: REQUEST, fingerprint: FINGERPRINT, now: 2_000 });
      expect(refusal(decideGuid(entryIn(state), again)), state).toBe("already-received");
    }
    for (const command of commandsAt(1_000)) {
      if (command.type === "guid.receive") continue;
      expect(refusal(decideGuid(newGuidEntry("g-1"), command)), command.type).toBe("unknown-guid");
    }
  });
});

describe("guidMachine: what a repeated GUID gets (SPEC G3)", () => {
  it("G3: RECEIVED and SENT → in progress (E903), DONE → replay, UNKNOWN → outcome unknown (E901), all without a send", () => {
    expect(refusal(repeat(entryIn("RECEIVED")))).toBe("in-progress");
    expect(refusal(repeat(entryIn("SENT")))).toBe("in-progress");
    expect(refusal(repeat(entryIn("DONE")))).toBe("replay");
    expect(refusal(repeat(entryIn("UNKNOWN")))).toBe("outcome-unknown");
  });

  it("G3: FAILED may be sent again (same GUID, one more attempt) until the cap, then E902", () => {
    const failed = entryIn("FAILED", { attempts: 1 });
    const decision = repeat(failed, { maxAttempts: 2 });
    expect(accepted(decision)).toMatchObject({ state: "SENT", attempts: 2, code: "E903", guid: "g-1" });
    expect(decision.accepted && decision.events.map((e) => e.type)).toEqual(["guid.sent"]);
    expect(refusal(repeat(entryIn("FAILED", { attempts: 2 }), { maxAttempts: 2 }))).toBe("attempts-exhausted");
  });

  it("E422: the same GUID with another payload is refused in every state, before any other rule", () => {
    for (const state of GUID_STATES) {
      expect(refusal(repeat(entryIn(state), { fingerprint: "sha256:other" })), state).toBe("payload-mismatch");
    }
  });
});

describe("guidMachine: the send and its outcome (SPEC G4)", () => {
  it("G4: only a RECEIVED entry is handed to the core; it becomes SENT with attempt 1", () => {
    expect(accepted(decideGuid(entryIn("RECEIVED"), guidCommands.send({ now: 1_500 })))).toMatchObject({
      state: "SENT",
      attempts: 1,
      updatedAt: 1_500,
    });
    for (const state of ["SENT", "DONE", "UNKNOWN", "FAILED"] as const) {
      expect(refusal(decideGuid(entryIn(state), guidCommands.send({ now: 1_500 }))), state).toBe("not-received");
    }
  });

  it("G3: a definite answer → DONE with its code and exact text; not sent → FAILED (E902); no answer or an invalid one → UNKNOWN (E901)", () => {
    const sent = entryIn("SENT");
    const record = (outcome: Parameters<typeof guidCommands.record>[0]["outcome"]) =>
      decideGuid(sent, guidCommands.record({ attempt: 1, outcome, now: 1_200 }));
    expect(accepted(record(answered))).toMatchObject({ state: "DONE", code: "0000", response: ANSWER });
    expect(accepted(record({ kind: "answered", code: "B201", response: '{"guid":"g-1","code":"B201"}' }))).toMatchObject({
      state: "DONE",
      code: "B201",
    });
    expect(accepted(record({ kind: "not-sent" }))).toMatchObject({ state: "FAILED", code: "E902", response: null });
    expect(accepted(record({ kind: "no-answer" }))).toMatchObject({ state: "UNKNOWN", code: "E901" });
    const invalid = record({ kind: "invalid-answer" });
    expect(accepted(invalid)).toMatchObject({ state: "UNKNOWN", code: "E901" });
    expect(invalid.accepted && invalid.events[0]).toMatchObject({ type: "guid.unknown", data: { reason: "invalid-answer" } });
  });

  it("an outcome for another attempt than the current one is refused", () => {
    const sent = entryIn("SENT", { attempts: 2 });
    expect(refusal(decideGuid(sent, guidCommands.record({ attempt: 1, outcome: answered, now: 1_200 })))).toBe("stale-attempt");
  });

  it("G5: an UNKNOWN entry is settled only by the inquiry, never by a late answer", () => {
    expect(refusal(decideGuid(entryIn("UNKNOWN"), guidCommands.record({ attempt: 1, outcome: answered, now: 1_200 })))).toBe(
      "not-in-flight",
    );
  });
});

describe("guidMachine: resolve, reprocess, recover, purge (SPEC G5-G7)", () => {
  const resolve = (entry: LedgerEntry, now: number, found = true) =>
    decideGuid(
      entry,
      guidCommands.resolve({
        answer: found ? { kind: "found", code: "0000", response: ANSWER } : { kind: "not-found" },
        minAgeMs: 500,
        now,
      }),
    );

  it("G5: an UNKNOWN younger than the min age is not settled; at the min age, found → DONE and not found → FAILED", () => {
    const unknown = entryIn("UNKNOWN", { at: 1_000 });
    expect(refusal(resolve(unknown, 1_499))).toBe("too-young");
    expect(refusal(resolve(unknown, 1_499, false))).toBe("too-young");
    expect(accepted(resolve(unknown, 1_500))).toMatchObject({ state: "DONE", code: "0000", response: ANSWER });
    expect(accepted(resolve(unknown, 1_500, false))).toMatchObject({ state: "FAILED", code: "E902" });
    for (const state of ["RECEIVED", "SENT", "DONE", "FAILED"] as const)
      expect(refusal(resolve(entryIn(state), 9_999))).toBe("not-unknown");
  });

  it("G6: reprocess takes only FAILED, below the cap, and keeps the GUID; never UNKNOWN", () => {
    const reprocess = (entry: LedgerEntry, maxAttempts: number) =>
      decideGuid(entry, guidCommands.reprocess({ maxAttempts, now: 5_000 }));
    expect(accepted(reprocess(entryIn("FAILED", { attempts: 1 }), 3))).toMatchObject({ guid: "g-1", state: "SENT", attempts: 2 });
    expect(refusal(reprocess(entryIn("FAILED", { attempts: 3 }), 3))).toBe("attempts-exhausted");
    expect(refusal(reprocess(entryIn("UNKNOWN"), 3))).toBe("not-failed");
    for (const state of ["RECEIVED", "SENT", "DONE"] as const) expect(refusal(reprocess(entryIn(state), 3))).toBe("not-failed");
  });

  it("recovery sweep: RECEIVED → FAILED and SENT → UNKNOWN once old enough; nothing else", () => {
    const recover = (entry: LedgerEntry, now: number) => decideGuid(entry, guidCommands.recover({ olderThanMs: 100, now }));
    expect(refusal(recover(entryIn("RECEIVED", { at: 1_000 }), 1_099))).toBe("too-young");
    expect(accepted(recover(entryIn("RECEIVED", { at: 1_000 }), 1_100))).toMatchObject({ state: "FAILED", attempts: 0 });
    expect(refusal(recover(entryIn("SENT", { at: 1_000 }), 1_099))).toBe("too-young");
    expect(accepted(recover(entryIn("SENT", { at: 1_000 }), 1_100))).toMatchObject({ state: "UNKNOWN" });
    for (const state of ["DONE", "UNKNOWN", "FAILED"] as const)
      expect(refusal(recover(entryIn(state), 9_999))).toBe("not-in-flight");
  });

  it("G7: purge takes only DONE, only with a retention longer than the resend window, only once older than the retention", () => {
    const purge = (entry: LedgerEntry, now: number, retentionMs = 1_000, resendWindowMs = 999) =>
      decideGuid(entry, guidCommands.purge({ retentionMs, resendWindowMs, now }));
    expect(refusal(purge(entryIn("DONE", { at: 0 }), 5_000, 1_000, 1_000))).toBe("retention-too-short");
    expect(refusal(purge(entryIn("DONE", { at: 0 }), 999))).toBe("too-young");
    const decision = purge(entryIn("DONE", { at: 0 }), 1_000);
    expect(decision.accepted && decision.events.map((e) => e.type)).toEqual(["guid.purged"]);
    for (const state of ["RECEIVED", "SENT", "UNKNOWN", "FAILED"] as const) {
      expect(refusal(purge(entryIn(state, { at: 0 }), 1_000_000)), state).toBe("not-done");
    }
  });

  it("G7: in every state a purge refuses a short retention first, then an entry younger than the retention", () => {
    for (const state of GUID_STATES) {
      const entry = entryIn(state, { at: 0 });
      const purge = (now: number, resendWindowMs: number) =>
        decideGuid(entry, guidCommands.purge({ retentionMs: 1_000, resendWindowMs, now }));
      expect(refusal(purge(1_000_000, 1_000)), state).toBe("retention-too-short");
      expect(refusal(purge(999, 999)), state).toBe("too-young");
    }
    // A GUID never received: the short retention is still refused first, then the entry is unknown.
    const purgeNew = (resendWindowMs: number) =>
      decideGuid(newGuidEntry("g-1"), guidCommands.purge({ retentionMs: 1_000, resendWindowMs, now: 1_000_000 }));
    expect(refusal(purgeNew(1_000))).toBe("retention-too-short");
    expect(refusal(purgeNew(999))).toBe("unknown-guid");
  });
});

describe("guidMachine as a definition", () => {
  const commands = commandsAt;

  it("in every state, every command is accepted with events that fold to the machine's new state, or refused with a reason", () => {
    const scope = inertScope();
    let acceptedCount = 0;
    for (const state of ["NEW", ...GUID_STATES] as const) {
      for (const command of commands(1_000)) {
        const history: GuidEvent[] = state === "NEW" ? [] : historyIn(state, { at: 0 });
        const entry: GuidEntry = state === "NEW" ? newGuidEntry("g-1") : entryIn(state, { at: 0 });
        const decision = decideGuid(entry, command);
        const snapshot = guidMachine.resolveState({ value: state, context: { entry, emitted: [], refusal: null } });
        const next = guidMachine.transition(snapshot, command, scope);
        const where = `${state} + ${command.type}`;
        if (!decision.accepted) {
          expect(decision.refusal, where).not.toBe("unhandled");
          expect(next.value, where).toBe(state);
          expect(next.context.emitted, where).toEqual([]);
          continue;
        }
        acceptedCount++;
        expect(decision.events.length, where).toBeGreaterThan(0);
        // The entry the decider returns is the fold of the whole stream, and the machine agrees on the state.
        expect(foldGuid([...history, ...decision.events]), where).toEqual(decision.after);
        expect(next.value, where).toBe(decision.after.state);
      }
    }
    expect(acceptedCount).toBe(11);
  });

  it("a variant decider built with provide() is used as given (the mutation seam)", () => {
    const lenient = createGuidDecider(guidMachine.provide({ guards: { olderThanMinAge: () => true } }));
    const young = entryIn("UNKNOWN", { at: 1_000 });
    const command = guidCommands.resolve({ answer: { kind: "not-found" }, minAgeMs: 500, now: 1_001 });
    expect(refusal(decideGuid(young, command))).toBe("too-young");
    expect(refusal(lenient(young, command))).toBe("accepted → FAILED");
  });

  it("the decider checks that the entry is the fold of its events: a variant that records a move without taking it throws", () => {
    // The refuse action records a SENT event but the machine stays UNKNOWN: its own events
    // contradict the state it ended in, and the decider refuses to hand that to the store.
    const inconsistent = createGuidDecider(
      guidMachine.provide({
        actions: {
          refuse: assign(({ context, event }) => {
            if (event.type !== "guid.reprocess") return {};
            const sent = guidEvents.sent({ attempt: context.entry.attempts + 1, by: "reprocess", at: event.now });
            return { entry: evolveGuid(context.entry, sent), emitted: [...context.emitted, sent] };
          }),
        },
      }),
    );
    const unknown = entryIn("UNKNOWN", { at: 1_000 });
    const command = guidCommands.reprocess({ maxAttempts: 5, now: 5_000 });
    expect(refusal(decideGuid(unknown, command))).toBe("not-failed");
    expect(() => inconsistent(unknown, command)).toThrow("guid machine ended in UNKNOWN but its events fold to SENT");
  });

  it("exports a definition the visualizer can read", () => {
    const json = guidMachine.toJSON() as { states: Record<string, unknown> };
    expect(Object.keys(json.states)).toEqual(["NEW", "RECEIVED", "SENT", "DONE", "UNKNOWN", "FAILED"]);
  });
});

function commandsAt(now: number): GuidCommand[] {
  return [
    guidCommands.receive({ guid: "g-1", request: REQUEST, fingerprint: FINGERPRINT, now }),
    guidCommands.send({ now }),
    guidCommands.repeat({ fingerprint: FINGERPRINT, maxAttempts: 3, now }),
    guidCommands.repeat({ fingerprint: "sha256:other", maxAttempts: 3, now }),
    guidCommands.record({ attempt: 1, outcome: answered, now }),
    guidCommands.record({ attempt: 1, outcome: { kind: "no-answer" }, now }),
    guidCommands.record({ attempt: 1, outcome: { kind: "not-sent" }, now }),
    guidCommands.resolve({ answer: { kind: "not-found" }, minAgeMs: 10, now }),
    guidCommands.reprocess({ maxAttempts: 3, now }),
    guidCommands.recover({ olderThanMs: 10, now }),
    guidCommands.purge({ retentionMs: 10, resendWindowMs: 5, now }),
  ];
}

function inertScope(): MachineScope<typeof guidMachine> {
  return createInertScope(guidMachine, entryIn("RECEIVED"));
}
