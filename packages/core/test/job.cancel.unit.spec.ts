import { describe, expect, it } from "vitest";
import {
  REDRIVE_NOTE_MAX_LENGTH,
  createJobDecider,
  decideJob,
  foldJob,
  jobCommands,
  jobEvents,
  newJob,
  type Job,
  type JobDecision,
} from "../src/index.ts";
import { pendingJob } from "./job-fixtures.ts";

function accepted(decision: JobDecision): Job {
  if (!decision.accepted) throw new Error(`refused: ${decision.refusal}`);
  return decision.after;
}

const cancel = (job: Parameters<typeof decideJob>[0], note: string, now = 2_000) =>
  decideJob(job, jobCommands.cancel({ note, now }));
const claim = (job: Job, now: number, leaseMs = 100) => decideJob(job, jobCommands.claim({ owner: "A", leaseMs, now }));
const finish = (job: Job, token: number, outcome: "ok" | "retry" | "permanent", now: number) =>
  decideJob(job, jobCommands.finish({ token, outcome, now, retryDelayMs: 10 }));
const heartbeat = (job: Job, token: number, now: number) => decideJob(job, jobCommands.heartbeat({ token, leaseMs: 500, now }));

describe("jobMachine: cancel", () => {
  it("a pending job goes dead(cancelled) with the note, its token kept, and is never claimed", () => {
    const decision = cancel(pendingJob(), "OPS-7", 1_500);
    const job = accepted(decision);
    expect(job).toMatchObject({ state: "dead", reason: "cancelled", deadSince: 1_500, token: 0, owner: null, leaseUntil: null });
    expect(decision.accepted && decision.events).toEqual([jobEvents.cancelled({ previousToken: 0, note: "OPS-7", at: 1_500 })]);
    expect(claim(job, 9_000)).toEqual({ accepted: false, refusal: "not-claimable", command: "job.claim" });
  });

  it("a pending job that is not due yet is cancelled all the same", () => {
    const later: Job = { ...pendingJob(), availableAt: 50_000 };
    expect(accepted(cancel(later, "OPS-7", 1_500))).toMatchObject({ state: "dead", reason: "cancelled" });
  });

  it("a leased job goes dead(cancelled); the holder's heartbeat and finish with its token are refused as not-leased", () => {
    const leased = accepted(claim(pendingJob(), 1_000));
    const cancelled = accepted(cancel(leased, "INC#42", 1_050));
    expect(cancelled).toMatchObject({ state: "dead", reason: "cancelled", token: 1, attempts: 1, owner: null, leaseUntil: null });
    expect(heartbeat(cancelled, 1, 1_060)).toEqual({ accepted: false, refusal: "not-leased", command: "job.heartbeat" });
    for (const outcome of ["ok", "retry", "permanent"] as const) {
      expect(finish(cancelled, 1, outcome, 1_060)).toEqual({ accepted: false, refusal: "not-leased", command: "job.finish" });
    }
  });

  it("a leased job whose lease expired (now == leaseUntil) is still cancelled, not reclaimed", () => {
    const leased = accepted(claim(pendingJob(), 1_000, 100));
    expect(accepted(cancel(leased, "OPS-1", 1_100))).toMatchObject({ state: "dead", reason: "cancelled", token: 1 });
    expect(accepted(cancel(leased, "OPS-1", 1_099))).toMatchObject({ state: "dead", reason: "cancelled", token: 1 });
  });

  it("done and dead jobs refuse a cancel as not-cancellable, whatever the note; a stream with no job as unknown-job", () => {
    const leased = accepted(claim(pendingJob(), 1_000));
    const done = accepted(finish(leased, 1, "ok", 1_010));
    const dead = accepted(finish(leased, 1, "permanent", 1_010));
    const cancelled = accepted(cancel(leased, "OPS-1"));
    for (const job of [done, dead, cancelled]) {
      expect(cancel(job, "OPS-2")).toEqual({ accepted: false, refusal: "not-cancellable", command: "job.cancel" });
      expect(cancel(job, "free text")).toMatchObject({ refusal: "not-cancellable" });
    }
    expect(cancel(newJob("order-9"), "OPS-2")).toEqual({ accepted: false, refusal: "unknown-job", command: "job.cancel" });
    expect(cancel(newJob("order-9"), "")).toMatchObject({ refusal: "unknown-job" });
  });

  it("the note is a ticket id: both sides of each bound of the redrive note rule", () => {
    const leased = accepted(claim(pendingJob(), 1_000));
    const longest = `A${"1".repeat(REDRIVE_NOTE_MAX_LENGTH - 1)}`;
    for (const note of ["A", "OPS-1234", "JIRA:PAY-77", "gh/verq/issues/12", longest]) {
      expect(accepted(cancel(pendingJob(), note)).reason).toBe("cancelled");
      expect(accepted(cancel(leased, note)).reason).toBe("cancelled");
    }
    for (const note of ["", `${longest}2`, "-OPS", "fixed it", "OPS-1\nDROP", "Müller-1"]) {
      expect(cancel(pendingJob(), note)).toEqual({ accepted: false, refusal: "invalid-note", command: "job.cancel" });
      expect(cancel(leased, note)).toEqual({ accepted: false, refusal: "invalid-note", command: "job.cancel" });
    }
  });

  it("a redrive brings a cancelled job back with its token kept; the old holder stays stale", () => {
    const leased = accepted(claim(pendingJob(), 1_000));
    const cancelled = accepted(cancel(leased, "OPS-1", 1_050));
    const back = accepted(
      decideJob(
        cancelled,
        jobCommands.redrive({
          note: "OPS-2",
          deadline: 90_000,
          recentRedrives: 0,
          limit: { max: 5, windowMs: 60_000 },
          originalWindowMs: 60_000,
          now: 2_000,
        }),
      ),
    );
    expect(back).toMatchObject({ state: "pending", token: 1, attempts: 0, reason: null, deadSince: null });
    const again = accepted(claim(back, 2_000));
    expect(again.token).toBe(2);
    expect(finish(again, 1, "ok", 2_010)).toMatchObject({ refusal: "stale-token" });
  });

  it("the decided job equals the fold of its stream, on the table and on XState's interpreter alike", () => {
    const enqueued = jobEvents.enqueued({
      id: "order-1",
      payload: { quantity: 7 },
      maxAttempts: 3,
      deadline: 61_000,
      availableAt: 1_000,
      orderingKey: null,
      at: 1_000,
    });
    const xstate = createJobDecider(undefined, "xstate");
    const claimed = claim(pendingJob(), 1_000);
    const leased = accepted(claimed);
    const command = jobCommands.cancel({ note: "OPS-3", now: 1_020 });
    const onTable = decideJob(leased, command);
    expect(xstate(leased, command)).toEqual(onTable);
    if (!claimed.accepted || !onTable.accepted) throw new Error("refused");
    expect(foldJob([enqueued, ...claimed.events, ...onTable.events])).toEqual(onTable.after);
  });
});
