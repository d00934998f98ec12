import { describe, expect, it } from "vitest";
import { VERQ_MACHINES, machineJson, type VerqMachineName } from "../src/index.ts";

const NAMES = Object.keys(VERQ_MACHINES) as VerqMachineName[];

type Json = Record<string, unknown>;

/** A copy of `value` without the keys `drop` says to leave out. */
function without(value: unknown, drop: (key: string, value: unknown) => boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => without(v, drop));
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k, v]) => !drop(k, v))
      .map(([k, v]) => [k, without(v, drop)]),
  );
}

describe("machineJson", () => {
  it.each(NAMES)("holds all of the %s machine's toJSON() as JSON writes it", (name) => {
    const written = JSON.parse(machineJson(VERQ_MACHINES[name])) as Json;
    const bare = JSON.parse(JSON.stringify(VERQ_MACHINES[name].toJSON())) as Json;
    // What machineJson adds: eventless transitions, and the guards that bare JSON drops.
    const added = (key: string, value: unknown) => key === "always" || (key === "guard" && typeof value === "string");
    expect(without(written, added)).toEqual(without(bare, (key) => key === "guard"));
    // Every guard bare JSON kept is kept as it was.
    expect(
      JSON.stringify(bare)
        .match(/"guard":"[^"]*"/g)
        ?.every((g) => JSON.stringify(written).includes(g)),
    ).toBe(true);
  });

  it("writes a guard built by not() as its name instead of dropping it, and keeps action params", () => {
    const job = JSON.parse(machineJson(VERQ_MACHINES.job)) as {
      states: Record<string, { on: Record<string, { guard?: string; actions: unknown[] }[]> }>;
    };
    const finish = job.states.leased?.on["job.finish"] ?? [];
    expect(finish.map((t) => t.guard)).toEqual([
      "!tokenMatches",
      "outcomeIsOk",
      "outcomeIsPermanent",
      "attemptsExhausted",
      "nextRunAtOrPastDeadline",
      undefined,
    ]);
    expect(finish[2]?.actions).toEqual([{ type: "die", params: { reason: "permanent" } }]);
    expect(finish[0]?.actions).toEqual([{ type: "refuse", params: { refusal: "stale-token" } }]);
  });

  it("adds the eventless transitions that toJSON() leaves out, in the form of `on`", () => {
    const message = JSON.parse(machineJson(VERQ_MACHINES.message)) as {
      states: Record<string, { always?: { guard?: string; target?: string[]; source: string }[] }>;
    };
    const bare = JSON.parse(JSON.stringify(VERQ_MACHINES.message.toJSON())) as typeof message;
    expect(bare.states.processing?.always).toBeUndefined();
    expect(message.states.processing?.always?.map((t) => [t.guard, t.target])).toEqual([
      ["rejects", ["#message.error"]],
      ["isDuplicate", ["#message.done"]],
      ["isRecorded", ["#message.done"]],
      ["isSettling", undefined],
    ]);
    expect(message.states.processing?.always?.[0]?.source).toBe("#message.processing");
    expect(message.states.done?.always).toBeUndefined();
  });

  it("ends with one line break", () => {
    const text = machineJson(VERQ_MACHINES.guid);
    expect(text.endsWith("}\n")).toBe(true);
    expect(text.endsWith("\n\n")).toBe(false);
  });
});
