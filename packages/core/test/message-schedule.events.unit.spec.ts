import { describe, expect, it } from "vitest";
import {
  decideMessage,
  decideSchedule,
  evolveMessage,
  foldMessage,
  messageCommands,
  messageEvents,
  newMessage,
  newSchedule,
  scheduleCommands,
  scheduleEvents,
  type MessageDecision,
  type MessageVerdictFacts,
  type ScheduleDecision,
  type ScheduleDefinition,
} from "../src/index.ts";

const eventsOf = (decision: MessageDecision | ScheduleDecision) => {
  if (!decision.accepted) throw new Error(`refused: ${decision.refusal}`);
  return decision.events;
};

describe("messageMachine: the facts each transition records", () => {
  const duplicate: MessageVerdictFacts = {
    kind: "valid",
    inserted: false,
    key: "M1",
    group: "O-1",
    sequence: 1,
    amount: 5,
    message: "{}",
    file: "a.json",
  };

  it("a duplicate records the claim, the key and the file; a replay by command says so", () => {
    const settle = messageCommands.settle({
      claimId: "c1",
      owner: "7@host",
      file: "a.json",
      recovered: false,
      verdict: duplicate,
      now: 5,
    });
    expect(eventsOf(decideMessage(newMessage("c1"), settle))).toEqual([
      messageEvents.claimed({ claimId: "c1", owner: "7@host", file: "a.json", recovered: false, at: 5 }),
      messageEvents.duplicated({ claimId: "c1", key: "M1", file: "a.json", at: 5 }),
    ]);
    const rejected = decideMessage(
      newMessage("c2"),
      messageCommands.settle({
        claimId: "c2",
        owner: "7@host",
        file: "b.json",
        recovered: false,
        verdict: { kind: "invalid", reason: "parse", detail: "not JSON", file: "b.json" },
        now: 6,
      }),
    );
    const failed = rejected.accepted ? rejected.after : null;
    if (failed === null) throw new Error("refused");
    expect(eventsOf(decideMessage(failed, messageCommands.replay({ file: "b.json", now: 9 })))).toEqual([
      messageEvents.replayed({ file: "b.json", by: "command", at: 9 }),
    ]);
  });

  it("a claim alone leaves the message processing; the creation time is the first event's", () => {
    const claimed = messageEvents.claimed({ claimId: "c1", owner: "o", file: "a.json", recovered: false, at: 10 });
    const message = evolveMessage(newMessage("c1"), claimed);
    expect(message).toMatchObject({ state: "processing", createdAt: 10, updatedAt: 10, claims: 1, version: 1 });
    const done = foldMessage("c1", [claimed, messageEvents.duplicated({ claimId: "c1", key: "M1", file: "a.json", at: 25 })]);
    expect(done).toMatchObject({ state: "done", createdAt: 10, updatedAt: 25, version: 2 });
  });
});

describe("scheduleMachine: what counts as the same definition", () => {
  const HOURLY: ScheduleDefinition = { cron: "0 * * * *", timezone: "UTC", payload: { report: "hourly" }, queue: "default" };
  const added = () => {
    const decision = decideSchedule(newSchedule("nightly"), scheduleCommands.define({ definition: HOURLY, now: 1_000 }));
    if (!decision.accepted) throw new Error("refused");
    return decision.after;
  };

  it("the same cron, timezone, queue and payload (keys in any order) is unchanged; any one of them changed is an update", () => {
    const schedule = added();
    const same = decideSchedule(
      schedule,
      scheduleCommands.define({ definition: { ...HOURLY, payload: { report: "hourly" } }, now: 2_000 }),
    );
    expect(same).toEqual({ accepted: false, refusal: "unchanged", command: "schedule.define" });
    for (const change of [
      { cron: "30 * * * *" },
      { timezone: "Europe/Berlin" },
      { queue: "reports" },
      { payload: { report: "daily" } },
    ]) {
      const definition = { ...HOURLY, ...change };
      expect(
        eventsOf(decideSchedule(schedule, scheduleCommands.define({ definition, now: 2_000 }))),
        JSON.stringify(change),
      ).toEqual([scheduleEvents.updated({ ...definition, at: 2_000 })]);
    }
  });

  it("a removal records its time; the first fire of a schedule may be its slot at time 0", () => {
    const schedule = added();
    expect(eventsOf(decideSchedule(schedule, scheduleCommands.remove({ now: 3_000 })))).toEqual([
      scheduleEvents.removed({ at: 3_000 }),
    ]);
    const atZero = decideSchedule(newSchedule("epoch"), scheduleCommands.define({ definition: HOURLY, now: 0 }));
    if (!atZero.accepted) throw new Error("refused");
    expect(eventsOf(decideSchedule(atZero.after, scheduleCommands.fire({ slot: 0, firstMissed: null, now: 0 })))).toEqual([
      scheduleEvents.fired({ slot: 0, jobId: "schedule:epoch:1970-01-01T00:00:00.000Z", firstMissed: null, at: 0 }),
    ]);
  });
});
