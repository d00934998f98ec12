import { createActor } from "xstate";
import { describe, expect, it } from "vitest";
import {
  checkScheduleDefinition,
  createScheduleDecider,
  decideSchedule,
  dueSlot,
  foldSchedule,
  isCronSlot,
  isValidCron,
  isValidScheduleName,
  isValidTimezone,
  newSchedule,
  scheduleCommands,
  scheduleJobId,
  scheduleMachine,
  type Schedule,
  type ScheduleDecider,
  type ScheduleDecision,
  type ScheduleDefinition,
  type ScheduleEvent,
} from "../src/index.ts";

const T = Date.parse("2024-01-01T10:00:00.000Z");
const MINUTE = 60_000;
const HOURLY: ScheduleDefinition = { cron: "0 * * * *", timezone: "UTC", payload: { report: "hourly" }, queue: "default" };

const DECIDERS: [string, ScheduleDecider][] = [
  ["table", decideSchedule],
  ["xstate", createScheduleDecider(undefined, "xstate")],
];

function accepted(decision: ScheduleDecision): Schedule {
  if (!decision.accepted) throw new Error(`refused: ${decision.refusal}`);
  return decision.after;
}
const refusal = (decision: ScheduleDecision) => (decision.accepted ? "accepted" : decision.refusal);

describe.each(DECIDERS)("schedule machine (%s)", (_, decide) => {
  const define = (definition: ScheduleDefinition, now: number) => scheduleCommands.define({ definition, now });
  const fire = (slot: number, now: number, firstMissed: number | null = null) =>
    scheduleCommands.fire({ slot, firstMissed, now });
  // Added at T - 30 min: slots count from there.
  const added = () => accepted(decide(newSchedule("nightly"), define(HOURLY, T - 30 * MINUTE)));

  it("adds a schedule with a valid definition; its slots count from the time it was added", () => {
    const decision = decide(newSchedule("nightly"), define(HOURLY, T - 30 * MINUTE));
    const after = accepted(decision);
    expect(after).toMatchObject({ state: "active", cron: "0 * * * *", since: T - 30 * MINUTE, lastSlot: null, version: 1 });
    expect(decision.accepted && decision.events.map((e) => e.type)).toEqual(["schedule.added"]);
  });

  it("refuses an invalid name, cron expression, timezone or queue, writing nothing", () => {
    expect(refusal(decide(newSchedule("bad name"), define(HOURLY, T)))).toBe("invalid-name");
    expect(refusal(decide(newSchedule("n"), define({ ...HOURLY, cron: "61 * * * *" }, T)))).toBe("invalid-cron");
    expect(refusal(decide(newSchedule("n"), define({ ...HOURLY, timezone: "Mars/Olympus" }, T)))).toBe("invalid-timezone");
    expect(refusal(decide(newSchedule("n"), define({ ...HOURLY, queue: "" }, T)))).toBe("invalid-queue");
    expect(refusal(decide(newSchedule("n"), define({ ...HOURLY, queue: "q".repeat(257) }, T)))).toBe("invalid-queue");
    expect(decide(newSchedule("n"), define({ ...HOURLY, queue: "q".repeat(256) }, T)).accepted).toBe(true);
    expect(refusal(decide(added(), define({ ...HOURLY, cron: "* * *" }, T)))).toBe("invalid-cron");
  });

  it("checks every define the same way whatever the state: absent, active or removed, in the order name, cron, timezone, queue", () => {
    const active = added();
    const removed = accepted(decide(active, scheduleCommands.remove({ now: T })));
    for (const schedule of [newSchedule("nightly"), active, removed]) {
      const invalidName = { ...schedule, name: "bad name" };
      expect(refusal(decide(invalidName, define({ ...HOURLY, cron: "61 * * * *" }, T))), schedule.state).toBe("invalid-name");
      expect(refusal(decide(schedule, define({ ...HOURLY, cron: "61 * * * *", queue: "" }, T))), schedule.state).toBe(
        "invalid-cron",
      );
      expect(refusal(decide(schedule, define({ ...HOURLY, timezone: "Mars/Olympus", queue: "" }, T))), schedule.state).toBe(
        "invalid-timezone",
      );
      expect(refusal(decide(schedule, define({ ...HOURLY, queue: "" }, T))), schedule.state).toBe("invalid-queue");
    }
  });

  it("refuses the same definition again as unchanged, and records a changed one as an update that keeps the last slot", () => {
    const fired = accepted(decide(added(), fire(T, T)));
    expect(refusal(decide(fired, define({ ...HOURLY, payload: { report: "hourly" } }, T + MINUTE)))).toBe("unchanged");
    const updated = accepted(decide(fired, define({ ...HOURLY, payload: { report: "v2" } }, T + MINUTE)));
    expect(updated).toMatchObject({ state: "active", since: T + MINUTE, lastSlot: T, payload: { report: "v2" } });
  });

  it("fires a slot exactly at now, and refuses it 1 ms before (not due)", () => {
    expect(accepted(decide(added(), fire(T, T)))).toMatchObject({ lastSlot: T, fired: 1 });
    expect(refusal(decide(added(), fire(T, T - 1)))).toBe("not-due");
  });

  it("fires a slot exactly at since, and refuses it when since is 1 ms after it", () => {
    const at = accepted(decide(newSchedule("n"), define(HOURLY, T)));
    expect(accepted(decide(at, fire(T, T + 5)))).toMatchObject({ lastSlot: T });
    const after = accepted(decide(newSchedule("n"), define(HOURLY, T + 1)));
    expect(refusal(decide(after, fire(T, T + 5)))).toBe("not-due");
  });

  it("refuses a slot at or before the last one enqueued: a slot is recorded once", () => {
    const fired = accepted(decide(added(), fire(T, T)));
    expect(refusal(decide(fired, fire(T, T + 1)))).toBe("already-fired");
    expect(refusal(decide(fired, fire(T - 60 * MINUTE, T + 1)))).toBe("already-fired");
    expect(accepted(decide(fired, fire(T + 60 * MINUTE, T + 60 * MINUTE)))).toMatchObject({
      lastSlot: T + 60 * MINUTE,
      fired: 2,
    });
  });

  it("refuses a time that is not a slot of the cron expression (1 ms off a slot)", () => {
    expect(refusal(decide(added(), fire(T + 1, T + 10)))).toBe("not-a-slot");
    expect(refusal(decide(added(), fire(T - 1, T + 10)))).toBe("not-a-slot");
  });

  it("removes an active schedule; a removed or absent one refuses remove and fire as not-found, and may be added again", () => {
    const removed = accepted(decide(added(), scheduleCommands.remove({ now: T })));
    expect(removed.state).toBe("removed");
    expect(refusal(decide(removed, scheduleCommands.remove({ now: T })))).toBe("not-found");
    expect(refusal(decide(removed, fire(T, T)))).toBe("not-found");
    expect(refusal(decide(newSchedule("n"), fire(T, T)))).toBe("not-found");
    expect(refusal(decide(newSchedule("n"), scheduleCommands.remove({ now: T })))).toBe("not-found");
    expect(accepted(decide(removed, define(HOURLY, T + 1)))).toMatchObject({ state: "active", since: T + 1, version: 3 });
  });

  it("names the fired job after the schedule and the slot, and folds its events back to the decided state", () => {
    const decision = decide(added(), fire(T, T, T - 60 * MINUTE));
    if (!decision.accepted) throw new Error("refused");
    expect(decision.events[0]).toEqual({
      type: "schedule.fired",
      data: { slot: T, jobId: "schedule:nightly:2024-01-01T10:00:00.000Z", firstMissed: T - 60 * MINUTE, at: T },
    });
    const events: ScheduleEvent[] = [{ type: "schedule.added", data: { ...HOURLY, at: T - 30 * MINUTE } }, ...decision.events];
    expect(foldSchedule("nightly", events)).toEqual(decision.after);
  });
});

describe("schedule slots (missed-slot policy: only the latest due slot)", () => {
  it("is due exactly on a slot and not 1 ms before it", () => {
    expect(dueSlot("0 * * * *", "UTC", T - 30 * MINUTE, T)).toEqual({ slot: T, firstMissed: null });
    expect(dueSlot("0 * * * *", "UTC", T - 30 * MINUTE, T - 1)).toBeNull();
  });

  it("counts a slot exactly at `from`, not one 1 ms before it", () => {
    expect(dueSlot("0 * * * *", "UTC", T, T)).toEqual({ slot: T, firstMissed: null });
    expect(dueSlot("0 * * * *", "UTC", T + 1, T + 59 * MINUTE)).toBeNull();
    expect(dueSlot("0 * * * *", "UTC", T, T - 1)).toBeNull();
  });

  it("after downtime, gives only the latest slot and names the first one skipped", () => {
    const from = T - 3 * 60 * MINUTE + 1; // slots T-2h, T-1h and T are due
    expect(dueSlot("0 * * * *", "UTC", from, T + 10 * MINUTE)).toEqual({ slot: T, firstMissed: T - 2 * 60 * MINUTE });
  });

  it("reads the cron expression in its timezone, across DST changes", () => {
    // 09:00 in Berlin is 08:00 UTC in winter, 07:00 UTC in summer (after 2024-03-31).
    const winter = Date.parse("2024-03-30T08:00:00.000Z");
    const summer = Date.parse("2024-03-31T07:00:00.000Z");
    expect(dueSlot("0 9 * * *", "Europe/Berlin", winter - 1, winter)?.slot).toBe(winter);
    expect(dueSlot("0 9 * * *", "Europe/Berlin", winter + 1, summer)).toEqual({ slot: summer, firstMissed: null });
    expect(dueSlot("0 9 * * *", "Europe/Berlin", winter + 1, summer - 1)).toBeNull();
    // 02:30 does not exist in Berlin on 2024-03-31: that day's slot is the next wall time, 03:30 CEST.
    const spring = Date.parse("2024-03-31T01:30:00.000Z");
    expect(dueSlot("30 2 * * *", "Europe/Berlin", spring - 60 * MINUTE, spring)?.slot).toBe(spring);
    expect(isCronSlot("30 2 * * *", "Europe/Berlin", spring)).toBe(true);
    // 01:30 occurs twice in New York on 2024-11-03: one slot only, the first.
    const fallFrom = Date.parse("2024-11-03T04:00:00.000Z");
    expect(dueSlot("30 1 * * *", "America/New_York", fallFrom, Date.parse("2024-11-03T07:00:00.000Z"))).toEqual({
      slot: Date.parse("2024-11-03T05:30:00.000Z"),
      firstMissed: null,
    });
  });

  it("knows the slots of a cron expression to the millisecond", () => {
    expect(isCronSlot("0 * * * *", "UTC", T)).toBe(true);
    expect(isCronSlot("0 * * * *", "UTC", T + 1)).toBe(false);
    expect(isCronSlot("0 * * * *", "UTC", T - 1)).toBe(false);
    expect(isCronSlot("*/10 * * * * *", "UTC", T + 10_000)).toBe(true);
    expect(isCronSlot("*/10 * * * * *", "UTC", T + 9_999)).toBe(false);
  });

  it("derives the job id from the schedule name and the slot", () => {
    expect(scheduleJobId("nightly", T)).toBe("schedule:nightly:2024-01-01T10:00:00.000Z");
    expect(scheduleJobId("nightly", T + MINUTE)).not.toBe(scheduleJobId("nightly", T));
  });
});

describe("schedule input rules", () => {
  it("accepts 5 or 6 fields in range and aliases; refuses fewer or more fields, out-of-range values and impossible dates", () => {
    for (const ok of ["* * * * *", "0 9 * * 1-5", "*/10 * * * * *", "@hourly", "59 23 31 12 *"])
      expect(isValidCron(ok)).toBe(true);
    for (const bad of ["", "* * * *", "* * * * * * *", "60 * * * *", "0 24 * * *", "0 0 30 2 *", "hello", "@never", 5, null]) {
      expect(isValidCron(bad)).toBe(false);
    }
    expect(isValidCron(`0 ${"1,".repeat(100)}1 * * *`)).toBe(false); // over 200 characters
  });

  it("accepts IANA timezones only", () => {
    for (const ok of ["UTC", "Europe/Berlin", "America/New_York"]) expect(isValidTimezone(ok)).toBe(true);
    for (const bad of ["", "Mars/Olympus", "Europe/Berlin ", 1, undefined]) expect(isValidTimezone(bad)).toBe(false);
  });

  it("accepts names of 1 to 100 characters of A-Z a-z 0-9 . _ - starting with a letter or digit", () => {
    expect(isValidScheduleName("a")).toBe(true);
    expect(isValidScheduleName("a".repeat(100))).toBe(true);
    expect(isValidScheduleName("nightly-report_v2.eu")).toBe(true);
    expect(isValidScheduleName("a".repeat(101))).toBe(false);
    expect(isValidScheduleName("")).toBe(false);
    expect(isValidScheduleName("-a")).toBe(false);
    expect(isValidScheduleName("a:b")).toBe(false);
    expect(isValidScheduleName("a b")).toBe(false);
  });

  it("throws coded errors for a bad definition", () => {
    expect(() => checkScheduleDefinition("a b", "* * * * *", "UTC", "default")).toThrow(
      expect.objectContaining({ code: "VERQ_INVALID_ARGUMENT" }),
    );
    expect(() => checkScheduleDefinition("a", "* *", "UTC", "default")).toThrow(
      expect.objectContaining({ code: "VERQ_INVALID_CRON" }),
    );
    expect(() => checkScheduleDefinition("a", "* * * * *", "Nowhere", "default")).toThrow(
      expect.objectContaining({ code: "VERQ_INVALID_TIMEZONE" }),
    );
    // A schedule's queue follows the queue rule of enqueue and claim (an identifier of 1 to 256 characters).
    expect(() => checkScheduleDefinition("a", "* * * * *", "UTC", "")).toThrow(
      expect.objectContaining({ code: "VERQ_INVALID_ARGUMENT" }),
    );
    expect(() => checkScheduleDefinition("a", "* * * * *", "UTC", "q".repeat(257))).toThrow(
      expect.objectContaining({ code: "VERQ_INVALID_ARGUMENT" }),
    );
    expect(() => checkScheduleDefinition("a", "* * * * *", "UTC", "q".repeat(256))).not.toThrow();
    expect(() => checkScheduleDefinition("a", "* * * * *", "UTC", "mail:eu/high")).not.toThrow();
    expect(() => checkScheduleDefinition("a", "* * * * *", "UTC", "default")).not.toThrow();
  });
});

describe("scheduleMachine started on its own", () => {
  it("as the visualizer starts it: absent, holding the schedule it was given, no event and no refusal before a command", () => {
    const actor = createActor(scheduleMachine, { input: newSchedule("hourly-report") }).start();
    const snapshot = actor.getSnapshot();
    actor.stop();
    expect(snapshot.value).toBe("absent");
    expect(snapshot.context).toEqual({ schedule: newSchedule("hourly-report"), emitted: [], refusal: null });
  });
});
