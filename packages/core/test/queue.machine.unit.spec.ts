import { describe, expect, it } from "vitest";
import {
  MAX_PRIORITY,
  MAX_QUEUE_LIMIT,
  MIN_PRIORITY,
  checkPriority,
  checkQueueLimit,
  checkQueueName,
  createQueueDecider,
  decideJob,
  decideQueue,
  evolveJob,
  foldQueue,
  isVerqError,
  jobCommands,
  jobEvents,
  newJob,
  newQueue,
  queueCommands,
  type Job,
  type QueueSettings,
} from "../src/index.ts";
import { pendingJob } from "./job-fixtures.ts";

const claimWith = (job: Job, load: { leased: number; maxLeased: number | null } | undefined, now = 1_000) =>
  decideJob(
    job,
    load === undefined
      ? jobCommands.claim({ owner: "A", leaseMs: 100, now })
      : jobCommands.claim({ owner: "A", leaseMs: 100, now, queueLoad: load }),
  );

function codeOf(work: () => unknown): string | undefined {
  try {
    work();
  } catch (error) {
    return isVerqError(error) ? error.code : "not a VerqError";
  }
  return undefined;
}

describe("job machine: queue and priority", () => {
  it("an enqueue records its queue and priority, default and 0 unless told", () => {
    const plain = decideJob(
      newJob("a"),
      jobCommands.enqueue({ payload: 1, maxAttempts: 1, deadline: 9_000, availableAt: 0, orderingKey: null, now: 0 }),
    );
    expect(plain.accepted && [plain.after.queue, plain.after.priority]).toEqual(["default", 0]);
    const told = decideJob(
      newJob("a"),
      jobCommands.enqueue({
        payload: 1,
        maxAttempts: 1,
        deadline: 9_000,
        availableAt: 0,
        orderingKey: null,
        queue: "mail",
        priority: -7,
        now: 0,
      }),
    );
    expect(told.accepted && told.events[0]?.type === "job.enqueued" && told.events[0].data).toMatchObject({
      queue: "mail",
      priority: -7,
    });
    expect(told.accepted && [told.after.queue, told.after.priority]).toEqual(["mail", -7]);
  });

  it("a job.enqueued written before queues existed folds to queue default, priority 0", () => {
    const old = jobEvents.enqueued({
      id: "a",
      payload: 1,
      maxAttempts: 1,
      deadline: 9,
      availableAt: 0,
      orderingKey: null,
      at: 0,
    });
    expect(evolveJob(newJob("a"), old)).toMatchObject({ queue: "default", priority: 0 });
  });

  it("the same id and payload in another queue or with another priority is a payload-conflict; the same all three is a no-op", () => {
    const job = { ...pendingJob(), queue: "mail", priority: 5 };
    const again = (queue: string | undefined, priority: number | undefined) =>
      decideJob(
        job,
        jobCommands.enqueue({
          payload: job.payload,
          maxAttempts: 3,
          deadline: 99_000,
          availableAt: 0,
          orderingKey: null,
          ...(queue === undefined ? {} : { queue }),
          ...(priority === undefined ? {} : { priority }),
          now: 5_000,
        }),
      );
    expect(again("mail", 5)).toEqual({ accepted: false, refusal: "already-enqueued", command: "job.enqueue" });
    expect(again("mail", 4)).toEqual({ accepted: false, refusal: "payload-conflict", command: "job.enqueue" });
    expect(again("other", 5)).toEqual({ accepted: false, refusal: "payload-conflict", command: "job.enqueue" });
    expect(again(undefined, undefined)).toEqual({ accepted: false, refusal: "payload-conflict", command: "job.enqueue" });
  });

  it("queue-full: a pending job is claimed while leased < maxLeased and refused from leased == maxLeased on", () => {
    const job = pendingJob();
    expect(claimWith(job, { leased: 2, maxLeased: 3 }).accepted).toBe(true);
    expect(claimWith(job, { leased: 3, maxLeased: 3 })).toEqual({ accepted: false, refusal: "queue-full", command: "job.claim" });
    expect(claimWith(job, { leased: 4, maxLeased: 3 })).toEqual({ accepted: false, refusal: "queue-full", command: "job.claim" });
    expect(claimWith(job, { leased: 0, maxLeased: 1 }).accepted).toBe(true);
    expect(claimWith(job, { leased: 1, maxLeased: 1 }).accepted).toBe(false);
    expect(claimWith(job, { leased: 1_000, maxLeased: null }).accepted).toBe(true);
    expect(claimWith(job, undefined).accepted).toBe(true);
  });

  it("the take-over of an expired lease keeps the queue's count, so a full queue does not refuse it", () => {
    const first = claimWith(pendingJob(), undefined);
    if (!first.accepted) throw new Error("claim refused");
    const again = claimWith(first.after, { leased: 1, maxLeased: 1 }, first.after.leaseUntil ?? 0);
    expect(again.accepted && [again.after.state, again.after.token]).toEqual(["leased", 2]);
    const held = claimWith(first.after, { leased: 1, maxLeased: 1 }, (first.after.leaseUntil ?? 0) - 1);
    expect(held).toEqual({ accepted: false, refusal: "lease-held", command: "job.claim" });
  });
});

describe("queue machine", () => {
  const set = (queue: QueueSettings, maxLeased: number | null, now = 10) =>
    decideQueue(queue, queueCommands.setLimit({ maxLeased, now }));

  it("sets, changes and removes a limit, each a queue.limitSet; the limit it already has is refused as unchanged", () => {
    const limited = set(newQueue("mail"), 3);
    expect(limited).toEqual({
      accepted: true,
      after: { name: "mail", state: "limited", maxLeased: 3, updatedAt: 10, version: 1 },
      events: [{ type: "queue.limitSet", data: { maxLeased: 3, at: 10 } }],
    });
    if (!limited.accepted) throw new Error("refused");
    expect(set(limited.after, 3)).toEqual({ accepted: false, refusal: "unchanged", command: "queue.setLimit" });
    const changed = set(limited.after, 4, 20);
    expect(changed.accepted && changed.after).toEqual({
      name: "mail",
      state: "limited",
      maxLeased: 4,
      updatedAt: 20,
      version: 2,
    });
    const removed = set(limited.after, null, 30);
    expect(removed.accepted && removed.after).toEqual({
      name: "mail",
      state: "unlimited",
      maxLeased: null,
      updatedAt: 30,
      version: 2,
    });
    expect(set(newQueue("mail"), null)).toEqual({ accepted: false, refusal: "unchanged", command: "queue.setLimit" });
    if (!changed.accepted) throw new Error("refused");
    expect(foldQueue("mail", [...limited.events, ...changed.events])).toEqual(changed.after);
  });

  it("the table and XState's interpreter decide alike", () => {
    const reference = createQueueDecider(undefined, "xstate");
    let queue = newQueue("q");
    for (const [i, limit] of [3, 3, null, null, 1, 2, 2].entries()) {
      const a = decideQueue(queue, queueCommands.setLimit({ maxLeased: limit, now: i }));
      expect(reference(queue, queueCommands.setLimit({ maxLeased: limit, now: i }))).toEqual(a);
      if (a.accepted) queue = a.after;
    }
  });
});

describe("queue input", () => {
  it("a queue name follows the identifier rules", () => {
    expect(checkQueueName("q")).toBe("q");
    expect(checkQueueName("x".repeat(256))).toBe("x".repeat(256));
    for (const bad of ["", "x".repeat(257), "a\nb", 7, null])
      expect(codeOf(() => checkQueueName(bad))).toBe("VERQ_INVALID_ARGUMENT");
  });

  it("a priority is a whole number from -1000 to 1000", () => {
    for (const ok of [MIN_PRIORITY, MIN_PRIORITY + 1, 0, MAX_PRIORITY - 1, MAX_PRIORITY]) expect(checkPriority(ok)).toBe(ok);
    for (const bad of [MIN_PRIORITY - 1, MAX_PRIORITY + 1, 0.5, "1", Number.NaN, null])
      expect(codeOf(() => checkPriority(bad))).toBe("VERQ_INVALID_ARGUMENT");
  });

  it("a limit is a whole number from 1 to MAX_QUEUE_LIMIT, or null", () => {
    for (const ok of [1, 2, MAX_QUEUE_LIMIT, null]) expect(checkQueueLimit(ok)).toBe(ok);
    for (const bad of [0, -1, MAX_QUEUE_LIMIT + 1, 1.5, "3", undefined])
      expect(codeOf(() => checkQueueLimit(bad))).toBe("VERQ_INVALID_ARGUMENT");
  });
});
