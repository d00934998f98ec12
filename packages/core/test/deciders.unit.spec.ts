import { assign, createActor } from "xstate";
import { describe, expect, it } from "vitest";
import {
  createGuidDecider,
  createJobDecider,
  createMachineDecider,
  createQueueDecider,
  evolveGuid,
  evolveJob,
  foldGuid,
  foldJob,
  guidCommands,
  guidEvents,
  guidMachine,
  jobCommands,
  jobEvents,
  jobMachine,
  messageMachine,
  newGuidEntry,
  newJob,
  newMessage,
  newQueue,
  observeTransitions,
  queueCommands,
  queueMachine,
} from "../src/index.ts";
import { entryIn } from "./guid-fixtures.ts";
import { pendingJob } from "./job-fixtures.ts";

/** The transition keys an observer is told while `run` runs. */
function observed(run: () => void): string[] {
  const keys: string[] = [];
  observeTransitions((_machine, key) => keys.push(key));
  try {
    run();
  } finally {
    observeTransitions(null);
  }
  return keys;
}

describe("the deciders' defaults", () => {
  it("a decider runs the compiled table unless told to run XState's interpreter (only the table tells an observer)", () => {
    const claim = jobCommands.claim({ owner: "A", leaseMs: 100, now: 1_000 });
    expect(observed(() => createJobDecider()(pendingJob(), claim))).toEqual(["pending\tjob.claim\t2"]);
    expect(observed(() => createJobDecider(undefined, "xstate")(pendingJob(), claim))).toEqual([]);
    const send = guidCommands.send({ now: 2_000 });
    expect(observed(() => createGuidDecider()(entryIn("RECEIVED"), send))).toEqual(["RECEIVED\tguid.send\t0"]);
    const limit = queueCommands.setLimit({ maxLeased: 3, now: 1_000 });
    expect(observed(() => createQueueDecider()(newQueue("q"), limit))).toEqual(["unlimited\tqueue.setLimit\t1"]);
    const binding = { machine: queueMachine, field: "queue", placeholder: newQueue("p") };
    expect(observed(() => createMachineDecider(binding, "unhandled")(newQueue("q"), limit))).toHaveLength(1);
    // Both decide the same.
    expect(createJobDecider(undefined, "xstate")(pendingJob(), claim)).toEqual(createJobDecider()(pendingJob(), claim));
  });

  it("a command that no transition records anything for is refused as unhandled, with the command's type", () => {
    // A variant whose refusals record nothing: typed loosely, as it fits every machine.
    const silent = { actions: { refuse: assign({}) } } as never;
    const guid = createGuidDecider(guidMachine.provide(silent));
    expect(guid(entryIn("DONE"), guidCommands.send({ now: 2_000 }))).toEqual({
      accepted: false,
      refusal: "unhandled",
      command: "guid.send",
    });
    const queue = createQueueDecider(queueMachine.provide(silent));
    expect(queue(newQueue("q"), queueCommands.setLimit({ maxLeased: null, now: 1 }))).toEqual({
      accepted: false,
      refusal: "unhandled",
      command: "queue.setLimit",
    });
  });

  it("a guid decision that records events but leaves the entry NEW is a broken machine, and throws", () => {
    const broken = guidMachine.provide({
      actions: { refuse: assign({ emitted: [guidEvents.sent({ attempt: 1, by: "claim", at: 1 })] }) },
    });
    expect(() => createGuidDecider(broken)(newGuidEntry("g-1"), guidCommands.send({ now: 1 }))).toThrow(
      new Error("nothing was decided for guid g-1, which has no events"),
    );
  });

  it("each machine's own initial context holds its input, no events and no refusal", () => {
    const entry = newGuidEntry("g-1");
    expect(createActor(guidMachine, { input: entry }).getSnapshot().context).toEqual({ entry, emitted: [], refusal: null });
    const queue = newQueue("q");
    expect(createActor(queueMachine, { input: queue }).getSnapshot().context).toEqual({ queue, emitted: [], refusal: null });
    const job = newJob("order-1");
    expect(createActor(jobMachine, { input: job }).getSnapshot().context).toEqual({ job, emitted: [], refusal: null });
    const message = newMessage("m-1");
    expect(createActor(messageMachine, { input: message }).getSnapshot().context).toEqual({
      message,
      emitted: [],
      refusal: null,
    });
  });
});

describe("folds refuse a stream that does not start with its creation", () => {
  const enqueued = jobEvents.enqueued({
    id: "order-1",
    payload: 1,
    maxAttempts: 1,
    deadline: 10,
    availableAt: 0,
    orderingKey: null,
    at: 0,
  });
  const completed = jobEvents.completed({ token: 1, at: 5 });

  it("evolveJob: an enqueue of a job, or another event before the enqueue, throws", () => {
    const job = evolveJob(newJob("order-1"), enqueued);
    expect(() => evolveJob(job, enqueued)).toThrow(new Error("job order-1 is already enqueued"));
    expect(() => evolveJob(newJob("order-1"), completed)).toThrow(new Error("job.completed before job.enqueued"));
    expect(evolveJob(job, jobEvents.leaseExpired({ token: 1, owner: "A", at: 3 }))).toMatchObject({
      state: "pending",
      owner: null,
      leaseUntil: null,
      leaseExpiries: 1,
      version: 2,
      updatedAt: 3,
    });
  });

  it("a claim over an expired lease records the lease taken away: its token, its owner, when", () => {
    const first = createJobDecider()(pendingJob(), jobCommands.claim({ owner: "A", leaseMs: 100, now: 1_000 }));
    if (!first.accepted) throw new Error("refused");
    const second = createJobDecider()(first.after, jobCommands.claim({ owner: "B", leaseMs: 100, now: 1_100 }));
    expect(second.accepted && second.events).toEqual([
      jobEvents.leaseExpired({ token: 1, owner: "A", at: 1_100 }),
      jobEvents.claimed({ token: 2, owner: "B", leaseUntil: 1_200, at: 1_100 }),
    ]);
  });

  it("foldJob: null for no events, and a throw when the first is not the enqueue", () => {
    expect(foldJob([])).toBeNull();
    expect(() => foldJob([completed])).toThrow(new Error("job.completed before job.enqueued"));
    expect(foldJob([enqueued, completed])).toMatchObject({ state: "done", version: 2 });
  });

  it("evolveGuid and foldGuid: a receipt of a received GUID, or another event first, throws; each event adds one version", () => {
    const received = guidEvents.received({ guid: "g-1", request: "{}", fingerprint: "f", at: 1 });
    const entry = evolveGuid(newGuidEntry("g-1"), received);
    expect(() => evolveGuid(entry, received)).toThrow(new Error("guid g-1 is already received"));
    const sent = guidEvents.sent({ attempt: 1, by: "claim", at: 2 });
    expect(() => evolveGuid(newGuidEntry("g-1"), sent)).toThrow(new Error("guid.sent before guid.received"));
    expect(() => foldGuid([sent])).toThrow(new Error("guid.sent before guid.received"));
    expect(evolveGuid(evolveGuid(entry, sent), guidEvents.unknown({ reason: "no-answer", at: 3 }))).toMatchObject({
      version: 3,
      updatedAt: 3,
    });
    expect(foldGuid([])).toBeNull();
    expect(foldGuid([received])).toMatchObject({ guid: "g-1", state: "RECEIVED", version: 1 });
  });
});
