import { describe, expect, it } from "vitest";
import {
  endsPurgeScan,
  guidReply,
  newMessage,
  newSchedule,
  scheduleDueSlot,
  settledFolder,
  type GuidRefusal,
  type LedgerEntry,
  type MessageState,
  type Schedule,
} from "../src/index.ts";
import { ANSWER, entryIn } from "./guid-fixtures.ts";

const relayBody = (code: string) => JSON.stringify({ guid: "g-1", code });

describe("guidReply: the relay's answer for an entry as it stands (SPEC G3)", () => {
  it("answers DONE with the stored response byte for byte, replayed only for a repeat refused as replay", () => {
    const done = entryIn("DONE");
    expect(guidReply(done, "replay")).toEqual({ status: 200, body: ANSWER, replayed: true });
    expect(guidReply(done)).toEqual({ status: 200, body: ANSWER, replayed: false });
    expect(guidReply(done, "in-progress")).toEqual({ status: 200, body: ANSWER, replayed: false });
  });

  it("answers E903 while RECEIVED or SENT, E901 when UNKNOWN, E902 when FAILED, all HTTP 200 and never replayed", () => {
    const cases: [LedgerEntry, string][] = [
      [entryIn("RECEIVED"), "E903"],
      [entryIn("SENT"), "E903"],
      [entryIn("UNKNOWN"), "E901"],
      [entryIn("FAILED"), "E902"],
    ];
    for (const [entry, code] of cases) {
      for (const refusal of [null, "replay", "outcome-unknown"] as (GuidRefusal | null)[]) {
        expect(guidReply(entry, refusal)).toEqual({ status: 200, body: relayBody(code), replayed: false });
      }
    }
  });

  it("answers a payload mismatch with 422, E422 and VERQ_GUID_PAYLOAD_MISMATCH, whatever the state", () => {
    for (const state of ["DONE", "SENT", "FAILED"] as const) {
      const reply = guidReply(entryIn(state), "payload-mismatch");
      expect(reply.status).toBe(422);
      expect(reply.replayed).toBe(false);
      expect(JSON.parse(reply.body)).toEqual({
        guid: "g-1",
        code: "E422",
        error: {
          code: "VERQ_GUID_PAYLOAD_MISMATCH",
          message: "this GUID was already used with another payload; a new transfer needs a new GUID",
        },
      });
    }
  });

  it("throws for a DONE entry without a response, which the machine never makes", () => {
    expect(() => guidReply({ ...entryIn("DONE"), response: null })).toThrow("ledger entry g-1 is DONE without a response");
  });
});

describe("endsPurgeScan: the first entry too young for the retention ends the purge's scan", () => {
  it("ends at too-young only", () => {
    expect(endsPurgeScan("too-young")).toBe(true);
    for (const refusal of ["not-done", "retention-too-short", "unhandled"] as GuidRefusal[]) {
      expect(endsPurgeScan(refusal)).toBe(false);
    }
  });
});

describe("settledFolder: where a file found in processing/ goes on recovery, by its message's state", () => {
  it("sends a settled message's file where the record says, and an unsettled one back through processing", () => {
    const cases: ["new" | MessageState, "done" | "error" | null][] = [
      ["new", null],
      ["inbox", null],
      ["processing", null],
      ["done", "done"],
      ["error", "error"],
    ];
    for (const [state, folder] of cases) expect(settledFolder({ ...newMessage("m-1"), state })).toBe(folder);
  });
});

describe("scheduleDueSlot: a schedule's slots count from its since, strictly after its last slot", () => {
  const HOUR = 3_600_000;
  const T = Date.UTC(2026, 0, 1, 12);
  const hourly = (since: number, lastSlot: number | null): Schedule => ({
    ...newSchedule("hourly"),
    state: "active",
    cron: "0 * * * *",
    since,
    lastSlot,
  });

  it("offers the latest slot since `since` when none was enqueued, naming the first one skipped", () => {
    expect(scheduleDueSlot(hourly(T - 3 * HOUR, null), T)).toEqual({ slot: T, firstMissed: T - 3 * HOUR });
    expect(scheduleDueSlot(hourly(T, null), T)).toEqual({ slot: T, firstMissed: null });
    expect(scheduleDueSlot(hourly(T + 1, null), T + HOUR - 1)).toBeNull();
    // With no slot enqueued yet, `since` itself is the first slot that may be due, even at the epoch.
    expect(scheduleDueSlot(hourly(0, null), 0)).toEqual({ slot: 0, firstMissed: null });
  });

  it("never offers the last slot again, nor one before `since`", () => {
    expect(scheduleDueSlot(hourly(T - 5 * HOUR, T), T + 30 * 60_000)).toBeNull();
    expect(scheduleDueSlot(hourly(T - 5 * HOUR, T - HOUR), T)).toEqual({ slot: T, firstMissed: null });
    expect(scheduleDueSlot(hourly(T - 5 * HOUR, T - 2 * HOUR), T)).toEqual({ slot: T, firstMissed: T - HOUR });
    // A since later than the last slot (a redefined schedule) counts from since.
    expect(scheduleDueSlot(hourly(T - HOUR / 2, T - 3 * HOUR), T)).toEqual({ slot: T, firstMissed: null });
    expect(scheduleDueSlot(hourly(T + 1, T - 3 * HOUR), T + HOUR - 1)).toBeNull();
  });
});
