import { describe, expect, it } from "vitest";
import { decideJob, jobCommands, jobEvents, newJob, type ArchivedJob, type Job, type JobDecision } from "../src/index.ts";
import { pendingJob } from "./job-fixtures.ts";

function accepted(decision: JobDecision): Job {
  if (!decision.accepted) throw new Error(`refused: ${decision.refusal}`);
  return decision.after;
}
const refusal = (decision: JobDecision) => (decision.accepted ? "accepted" : decision.refusal);

const claim = (job: Job, now: number) => accepted(decideJob(job, jobCommands.claim({ owner: "A", leaseMs: 100, now })));
const finish = (job: Job, outcome: "ok" | "permanent", now: number) =>
  accepted(decideJob(job, jobCommands.finish({ token: job.token, outcome, retryDelayMs: 10, now })));
const prune = (job: Job | ReturnType<typeof newJob>, doneCutoff: number, deadCutoff: number | null, now = 100_000) =>
  decideJob(job, jobCommands.prune({ doneCutoff, deadCutoff, now }));

// Enqueued at 1,000, claimed at 1,000, finished at 2,000.
const done = finish(claim(pendingJob(), 1_000), "ok", 2_000);
const dead = finish(claim(pendingJob(), 1_000), "permanent", 2_000);

describe("jobMachine: job.prune (retention)", () => {
  it("prunes a done job finished exactly at the cutoff, and refuses it one millisecond later", () => {
    const decision = prune(done, 2_000, null);
    expect(decision).toEqual({
      accepted: true,
      after: { ...done, version: done.version + 1, updatedAt: 100_000 },
      events: [
        jobEvents.pruned({
          state: "done",
          token: 1,
          reason: null,
          finishedAt: 2_000,
          doneCutoff: 2_000,
          deadCutoff: null,
          at: 100_000,
        }),
      ],
    });
    expect(refusal(prune(done, 1_999, null))).toBe("too-recent");
  });

  it("keeps dead jobs without a dead cutoff, and prunes them at the dead cutoff, not one millisecond before", () => {
    expect(refusal(prune(dead, 50_000, null))).toBe("dead-kept");
    expect(refusal(prune(dead, 50_000, 1_999))).toBe("too-recent");
    const decision = prune(dead, 0, 2_000);
    expect(decision.accepted && decision.events[0]?.data).toMatchObject({ state: "dead", reason: "permanent", token: 1 });
    // The done cutoff does not apply to dead jobs, nor the dead cutoff to done ones.
    expect(refusal(prune(done, 1_999, 50_000))).toBe("too-recent");
  });

  it("never prunes a pending or leased job, however old and whatever the cutoffs", () => {
    const pending = pendingJob();
    const leased = claim(pendingJob(), 1_000);
    for (const job of [pending, leased]) {
      expect(refusal(prune(job, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER))).toBe("not-finished");
    }
    // A leased job whose lease expired long ago is still leased until a claim says otherwise.
    expect(refusal(prune(leased, 10_000_000, 10_000_000, 20_000_000))).toBe("not-finished");
  });

  it("refuses a prune of an id with no job", () => {
    expect(refusal(prune(newJob("nope") as unknown as Job, 5_000, 5_000))).toBe("unknown-job");
  });
});

describe("jobMachine: enqueue of an archived id", () => {
  const enqueue = jobCommands.enqueue({
    payload: {},
    maxAttempts: 3,
    deadline: 200_000,
    availableAt: 0,
    orderingKey: null,
    now: 100_000,
  });
  const archive: ArchivedJob = {
    id: "order-1",
    state: "done",
    token: 1,
    reason: null,
    enqueuedAt: 1_000,
    finishedAt: 2_000,
    prunedAt: 50_000,
  };

  it("refuses it as archived-id, and accepts the same enqueue of an id never archived", () => {
    expect(refusal(decideJob(newJob("order-1", archive), enqueue))).toBe("archived-id");
    expect(refusal(decideJob(newJob("order-1"), enqueue))).toBe("accepted");
  });
});
