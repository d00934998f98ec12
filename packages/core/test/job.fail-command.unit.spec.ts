import { describe, expect, it } from "vitest";
import {
  decideJob,
  evolveJob,
  jobCommands,
  jobEvents,
  newJob,
  type FinishOutcome,
  type Job,
  type JobDecision,
  type JobFailure,
} from "../src/index.ts";
import { pendingJob } from "./job-fixtures.ts";

function accepted(decision: JobDecision): Job {
  if (!decision.accepted) throw new Error(`refused: ${decision.refusal}`);
  return decision.after;
}

const TIMEOUT: JobFailure = { category: "unexpected", errorClass: "TimeoutError", code: "ETIMEDOUT", status: null };
const UPSTREAM: JobFailure = { category: "retryable", errorClass: "FetchError", code: null, status: 503 };
const REFUSED: JobFailure = { category: "permanent", errorClass: "HttpError", code: null, status: 422 };

const claim = (job: Job, now: number, owner = "A") => decideJob(job, jobCommands.claim({ owner, leaseMs: 100, now }));
const fail = (job: Job, token: number, now: number, failure: JobFailure = TIMEOUT) =>
  decideJob(job, jobCommands.fail({ token, failure, now }));
const finish = (job: Job, token: number, outcome: FinishOutcome, now: number, failure?: JobFailure, retryDelayMs = 10) =>
  decideJob(job, jobCommands.finish({ token, outcome, retryDelayMs, ...(failure === undefined ? {} : { failure }), now }));

/** The job after a claim at 1 000 by A (token 1, attempt 1, lease until 1 100). */
const leasedJob = (overrides: { maxAttempts?: number; deadline?: number } = {}) => accepted(claim(pendingJob(overrides), 1_000));

describe("job.fail: a failure whose effect is unknown (SPEC J5)", () => {
  it("accepted for the current token: the job stays leased with its token, lease, owner and attempts; job.failed records the failure", () => {
    const leased = leasedJob();
    const decision = fail(leased, 1, 1_050);
    expect(decision.accepted && decision.events).toEqual([
      jobEvents.failed({ token: 1, attempt: 1, failure: TIMEOUT, at: 1_050 }),
    ]);
    expect(accepted(decision)).toEqual({
      ...leased,
      lastFailure: { ...TIMEOUT, attempt: 1, token: 1, at: 1_050 },
      updatedAt: 1_050,
      version: leased.version + 1,
    });
  });

  it("the attempt and token it records are the job's current ones, after a take-over", () => {
    const second = accepted(claim(leasedJob(), 1_100, "B"));
    const failed = accepted(fail(second, 2, 1_150, UPSTREAM));
    expect(failed).toMatchObject({ state: "leased", owner: "B", token: 2, attempts: 2, leaseUntil: 1_200 });
    expect(failed.lastFailure).toEqual({ ...UPSTREAM, attempt: 2, token: 2, at: 1_150 });
  });

  it("accepted after the lease ran out as long as nobody claimed since, and twice in a row: the last one is kept", () => {
    const late = accepted(fail(leasedJob(), 1, 5_000));
    expect(late).toMatchObject({ state: "leased", leaseUntil: 1_100, lastFailure: { at: 5_000 } });
    expect(accepted(fail(late, 1, 5_001, UPSTREAM)).lastFailure).toEqual({ ...UPSTREAM, attempt: 1, token: 1, at: 5_001 });
  });

  it("a stale or future token is refused as stale-token and changes nothing", () => {
    const second = accepted(claim(leasedJob(), 1_100, "B"));
    for (const token of [1, 3]) {
      expect(fail(second, token, 1_150)).toEqual({ accepted: false, refusal: "stale-token", command: "job.fail" });
    }
  });

  it("a job that is not leased refuses it as not-leased; a stream with no job as unknown-job", () => {
    const leased = leasedJob();
    const notLeased = { accepted: false, refusal: "not-leased", command: "job.fail" };
    expect(fail(pendingJob(), 0, 1_000)).toEqual(notLeased);
    expect(fail(accepted(finish(leased, 1, "ok", 1_050)), 1, 1_060)).toEqual(notLeased);
    expect(fail(accepted(finish(leased, 1, "permanent", 1_050)), 1, 1_060)).toEqual(notLeased);
    expect(fail(accepted(finish(leased, 1, "retry", 1_050)), 1, 1_060)).toEqual(notLeased);
    expect(decideJob(newJob("order-1"), jobCommands.fail({ token: 1, failure: TIMEOUT, now: 1_000 }))).toEqual({
      accepted: false,
      refusal: "unknown-job",
      command: "job.fail",
    });
  });
});

describe("finishes carry their failure", () => {
  it("a retry records its failure and attempt on job.retryScheduled, and the job keeps it as its last failure", () => {
    const decision = finish(leasedJob(), 1, "retry", 1_050, UPSTREAM, 40);
    expect(decision.accepted && decision.events).toEqual([
      jobEvents.retryScheduled({ token: 1, availableAt: 1_090, failure: UPSTREAM, attempt: 1, at: 1_050 }),
    ]);
    expect(accepted(decision)).toMatchObject({
      state: "pending",
      availableAt: 1_090,
      lastFailure: { ...UPSTREAM, attempt: 1, token: 1, at: 1_050 },
    });
  });

  it("permanent, exhausted and deadline deaths record the failure on job.died", () => {
    const permanent = finish(leasedJob(), 1, "permanent", 1_050, REFUSED);
    expect(permanent.accepted && permanent.events).toEqual([
      jobEvents.died({ token: 1, reason: "permanent", failure: REFUSED, attempt: 1, at: 1_050 }),
    ]);
    expect(accepted(permanent).lastFailure).toEqual({ ...REFUSED, attempt: 1, token: 1, at: 1_050 });
    const exhausted = finish(leasedJob({ maxAttempts: 1 }), 1, "retry", 1_050, UPSTREAM);
    expect(exhausted.accepted && exhausted.events).toEqual([
      jobEvents.died({ token: 1, reason: "exhausted", failure: UPSTREAM, attempt: 1, at: 1_050 }),
    ]);
    const deadline = finish(leasedJob({ deadline: 1_060 }), 1, "retry", 1_050, UPSTREAM, 10);
    expect(deadline.accepted && deadline.events).toEqual([
      jobEvents.died({ token: 1, reason: "deadline", failure: UPSTREAM, attempt: 1, at: 1_050 }),
    ]);
    expect(accepted(deadline)).toMatchObject({ state: "dead", reason: "deadline", lastFailure: { ...UPSTREAM, attempt: 1 } });
  });

  it("a finish without a failure records none and keeps the last one; ok never records one", () => {
    const failed = accepted(fail(leasedJob(), 1, 1_020));
    const retried = finish(failed, 1, "retry", 1_050, undefined, 40);
    expect(retried.accepted && retried.events).toEqual([jobEvents.retryScheduled({ token: 1, availableAt: 1_090, at: 1_050 })]);
    expect(accepted(retried).lastFailure).toEqual({ ...TIMEOUT, attempt: 1, token: 1, at: 1_020 });
    const permanent = finish(failed, 1, "permanent", 1_050);
    expect(permanent.accepted && permanent.events).toEqual([jobEvents.died({ token: 1, reason: "permanent", at: 1_050 })]);
    const ok = finish(failed, 1, "ok", 1_050, UPSTREAM);
    expect(ok.accepted && ok.events).toEqual([jobEvents.completed({ token: 1, at: 1_050 })]);
    expect(accepted(ok).lastFailure).toEqual(failed.lastFailure);
  });

  it("an expired last attempt quarantined by a claim records no failure and keeps the last one", () => {
    const failed = accepted(fail(leasedJob({ maxAttempts: 1 }), 1, 1_020));
    const decision = claim(failed, 1_100, "B");
    expect(decision.accepted && decision.events).toEqual([
      jobEvents.leaseExpired({ token: 1, owner: "A", at: 1_100 }),
      jobEvents.died({ token: 1, reason: "exhausted", at: 1_100 }),
    ]);
    expect(accepted(decision)).toMatchObject({ state: "dead", reason: "exhausted", lastFailure: failed.lastFailure });
  });
});

describe("evolveJob and failures", () => {
  it("job.failed sets lastFailure from its own attempt, token and time, and changes nothing else but the version", () => {
    const leased = leasedJob();
    const after = evolveJob(leased, jobEvents.failed({ token: 7, attempt: 4, failure: TIMEOUT, at: 1_060 }));
    expect(after).toEqual({
      ...leased,
      lastFailure: { ...TIMEOUT, attempt: 4, token: 7, at: 1_060 },
      updatedAt: 1_060,
      version: leased.version + 1,
    });
  });

  it("an event written before failures carried their attempt records the job's attempts", () => {
    const leased = accepted(claim(accepted(finish(leasedJob(), 1, "retry", 1_010)), 1_100));
    const retried = evolveJob(leased, jobEvents.retryScheduled({ token: 2, availableAt: 1_200, failure: UPSTREAM, at: 1_150 }));
    expect(retried.lastFailure).toEqual({ ...UPSTREAM, attempt: 2, token: 2, at: 1_150 });
    const died = evolveJob(leased, jobEvents.died({ token: 2, reason: "permanent", failure: REFUSED, at: 1_150 }));
    expect(died.lastFailure).toEqual({ ...REFUSED, attempt: 2, token: 2, at: 1_150 });
  });

  it("a redrive keeps the last failure", () => {
    const dead = accepted(finish(leasedJob(), 1, "permanent", 1_050, REFUSED));
    const back = evolveJob(dead, jobEvents.redriven({ previousToken: 1, note: "OPS-1", deadline: 90_000, at: 2_000 }));
    expect(back).toMatchObject({ state: "pending", attempts: 0, lastFailure: dead.lastFailure });
  });
});
