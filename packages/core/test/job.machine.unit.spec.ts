import { describe, expect, it } from "vitest";
import { decideJob, foldJob, jobCommands, jobEvents, jobMachine, newJob, type Job, type JobDecision } from "../src/index.ts";
import { pendingJob } from "./job-fixtures.ts";

function accepted(decision: JobDecision): Job {
  if (!decision.accepted) throw new Error(`refused: ${decision.refusal}`);
  return decision.after;
}

const claim = (job: Job, now: number, owner = "A", leaseMs = 100) => decideJob(job, jobCommands.claim({ owner, leaseMs, now }));
const finish = (job: Job, token: number, outcome: "ok" | "retry" | "permanent", now: number, retryDelayMs = 10) =>
  decideJob(job, jobCommands.finish({ token, outcome, now, retryDelayMs }));
const redriveCommand = (
  note: string,
  now: number,
  facts: { deadline?: number | null; recentRedrives?: number; max?: number; originalWindowMs?: number } = {},
) =>
  jobCommands.redrive({
    note,
    deadline: facts.deadline === undefined ? 90_000 : facts.deadline,
    recentRedrives: facts.recentRedrives ?? 0,
    limit: { max: facts.max ?? 50, windowMs: 60_000 },
    originalWindowMs: facts.originalWindowMs ?? 60_000,
    now,
  });
const enqueue = (payload: Job["payload"], now = 1_000) =>
  jobCommands.enqueue({ payload, maxAttempts: 3, deadline: now + 60_000, availableAt: now, orderingKey: null, now });

describe("jobMachine (pure decisions)", () => {
  it("J2: an enqueue is the transition new → pending, under the stream's id, at version 1", () => {
    const decision = decideJob(newJob("order-1"), enqueue({ quantity: 7 }));
    expect(accepted(decision)).toEqual(pendingJob());
    expect(decision.accepted && decision.events).toEqual([
      jobEvents.enqueued({
        id: "order-1",
        payload: { quantity: 7 },
        maxAttempts: 3,
        deadline: 61_000,
        availableAt: 1_000,
        orderingKey: null,
        queue: "default",
        priority: 0,
        at: 1_000,
      }),
    ]);
  });

  it("J2: an existing job refuses an enqueue: already-enqueued for its payload (keys in any order), payload-conflict for another", () => {
    const job = { ...pendingJob(), payload: { a: 1, b: [1, { c: 2, d: 3 }] } };
    const later = accepted(claim(job, 1_000));
    for (const existing of [job, later, accepted(finish(later, 1, "ok", 1_010))]) {
      expect(decideJob(existing, enqueue({ b: [1, { d: 3, c: 2 }], a: 1 }, 5_000))).toEqual({
        accepted: false,
        refusal: "already-enqueued",
        command: "job.enqueue",
      });
      expect(decideJob(existing, enqueue({ a: 1, b: [1, { c: 2, d: 4 }] }, 5_000))).toEqual({
        accepted: false,
        refusal: "payload-conflict",
        command: "job.enqueue",
      });
    }
  });

  it("a stream with no job refuses every other command as unknown-job, and an enqueue then a claim decide as one", () => {
    const blank = newJob("order-1");
    expect(decideJob(blank, jobCommands.claim({ owner: "A", leaseMs: 100, now: 1_000 }))).toEqual({
      accepted: false,
      refusal: "unknown-job",
      command: "job.claim",
    });
    expect(decideJob(blank, jobCommands.finish({ token: 1, outcome: "ok", retryDelayMs: 0, now: 1_000 }))).toMatchObject({
      refusal: "unknown-job",
    });
    expect(decideJob(blank, jobCommands.heartbeat({ token: 1, leaseMs: 10, now: 1_000 }))).toMatchObject({
      refusal: "unknown-job",
    });
    expect(decideJob(blank, redriveCommand("OPS-1", 1_000))).toMatchObject({ refusal: "unknown-job" });
    const both = decideJob(blank, enqueue({ quantity: 7 }), jobCommands.claim({ owner: "A", leaseMs: 100, now: 1_000 }));
    expect(accepted(both)).toMatchObject({ state: "leased", token: 1, version: 2 });
  });

  it("J3: a pending job is claimable at availableAt, not one ms before", () => {
    const job = pendingJob({ at: 1_000 });
    const early = { ...job, availableAt: 2_000 };
    expect(claim(early, 1_999)).toEqual({ accepted: false, refusal: "not-due", command: "job.claim" });
    const leased = accepted(claim(early, 2_000));
    expect(leased).toMatchObject({ state: "leased", token: 1, attempts: 1, owner: "A", leaseUntil: 2_100 });
  });

  it("J3: a lease is held at leaseUntil - 1 and expired at leaseUntil (the boundary belongs to the next claimer)", () => {
    const leased = accepted(claim(pendingJob(), 1_000, "A", 100));
    expect(claim(leased, 1_099, "B")).toEqual({ accepted: false, refusal: "lease-held", command: "job.claim" });
    const decision = claim(leased, 1_100, "B");
    const reclaimed = accepted(decision);
    expect(reclaimed).toMatchObject({ state: "leased", token: 2, attempts: 2, owner: "B", leaseExpiries: 1 });
    expect(decision.accepted && decision.events.map((e) => e.type)).toEqual(["job.leaseExpired", "job.claimed"]);
  });

  it("J3: each claim increments the token by exactly 1", () => {
    let job = pendingJob({ maxAttempts: 10 });
    for (let i = 1; i <= 5; i++) {
      job = accepted(claim(job, 1_000 + i * 100));
      expect(job.token).toBe(i);
    }
  });

  it("J3: an expired lease on the last attempt quarantines the job as dead(exhausted)", () => {
    const leased = accepted(claim(pendingJob({ maxAttempts: 1 }), 1_000));
    const dead = accepted(claim(leased, 1_100, "B"));
    expect(dead).toMatchObject({ state: "dead", reason: "exhausted", token: 1, owner: null, leaseUntil: null });
  });

  it("J4: ok → done, clearing only owner and leaseUntil", () => {
    const leased = accepted(claim(pendingJob(), 1_000));
    const done = accepted(finish(leased, 1, "ok", 1_050));
    expect(done).toEqual({ ...leased, state: "done", owner: null, leaseUntil: null, updatedAt: 1_050, version: 3 });
  });

  it("J4: permanent → dead(permanent)", () => {
    const leased = accepted(claim(pendingJob(), 1_000));
    expect(accepted(finish(leased, 1, "permanent", 1_050))).toMatchObject({
      state: "dead",
      reason: "permanent",
      deadSince: 1_050,
    });
  });

  it("J4: retry at attempts max - 1 schedules the next run; at max it is dead(exhausted)", () => {
    let job = pendingJob({ maxAttempts: 2 });
    job = accepted(claim(job, 1_000));
    const retried = accepted(finish(job, 1, "retry", 1_010, 40));
    expect(retried).toMatchObject({
      state: "pending",
      attempts: 1,
      availableAt: 1_050,
      owner: null,
      leaseUntil: null,
      reason: null,
    });
    job = accepted(claim(retried, 1_050));
    expect(job.attempts).toBe(2);
    expect(accepted(finish(job, 2, "retry", 1_060))).toMatchObject({ state: "dead", reason: "exhausted" });
  });

  it("J4: retry whose next run is at deadline - 1 is scheduled; at the deadline it is dead(deadline)", () => {
    const leased = accepted(claim(pendingJob({ deadline: 5_000 }), 1_000));
    expect(accepted(finish(leased, 1, "retry", 2_000, 2_999))).toMatchObject({ state: "pending", availableAt: 4_999 });
    expect(accepted(finish(leased, 1, "retry", 2_000, 3_000))).toMatchObject({ state: "dead", reason: "deadline" });
  });

  it("J4: the attempt budget is checked before the deadline", () => {
    const leased = accepted(claim(pendingJob({ maxAttempts: 1, deadline: 1_500 }), 1_000));
    expect(accepted(finish(leased, 1, "retry", 1_200, 10_000))).toMatchObject({ reason: "exhausted" });
  });

  it("J4: a finish with a stale or future token, or on a job that is not leased, is refused", () => {
    const first = accepted(claim(pendingJob(), 1_000));
    const second = accepted(claim(first, 1_100, "B"));
    expect(finish(second, 1, "ok", 1_150)).toEqual({ accepted: false, refusal: "stale-token", command: "job.finish" });
    expect(finish(second, 3, "ok", 1_150)).toEqual({ accepted: false, refusal: "stale-token", command: "job.finish" });
    expect(finish(pendingJob(), 0, "ok", 1_150)).toEqual({ accepted: false, refusal: "not-leased", command: "job.finish" });
    const done = accepted(finish(second, 2, "ok", 1_150));
    expect(finish(done, 2, "ok", 1_160)).toEqual({ accepted: false, refusal: "not-leased", command: "job.finish" });
  });

  it("J4: a finish after the lease expired but before anyone reclaimed is still the current token's", () => {
    const leased = accepted(claim(pendingJob(), 1_000));
    expect(accepted(finish(leased, 1, "ok", 5_000)).state).toBe("done");
  });

  it("J6: redrive only from dead; resets attempts, sets the deadline, keeps the token", () => {
    const leased = accepted(claim(pendingJob(), 1_000));
    const dead = accepted(finish(leased, 1, "permanent", 1_010));
    const redrive = (job: Job, note: string, deadline = 90_000) => decideJob(job, redriveCommand(note, 2_000, { deadline }));
    expect(redrive(pendingJob(), "OPS-1")).toEqual({ accepted: false, refusal: "not-dead", command: "job.redrive" });
    expect(redrive(leased, "OPS-1")).toEqual({ accepted: false, refusal: "not-dead", command: "job.redrive" });
    expect(redrive(accepted(finish(leased, 1, "ok", 1_010)), "OPS-1")).toEqual({
      accepted: false,
      refusal: "not-dead",
      command: "job.redrive",
    });
    expect(redrive(dead, "fixed it")).toEqual({ accepted: false, refusal: "invalid-note", command: "job.redrive" });
    expect(redrive(dead, "OPS-1", 2_000)).toEqual({ accepted: false, refusal: "invalid-deadline", command: "job.redrive" });
    const back = accepted(redrive(dead, "OPS-1"));
    expect(back).toMatchObject({ state: "pending", attempts: 0, token: 1, deadline: 90_000, reason: null, availableAt: 2_000 });
    expect(accepted(claim(back, 2_000)).token).toBe(2);
  });

  it("J6: without a deadline a redrive gives the job its original window again, from now", () => {
    const dead = accepted(finish(accepted(claim(pendingJob(), 1_000)), 1, "permanent", 1_010));
    const decision = decideJob(dead, redriveCommand("OPS-1", 2_000, { deadline: null, originalWindowMs: 60_000 }));
    expect(accepted(decision)).toMatchObject({ state: "pending", deadline: 62_000 });
    expect(decision.accepted && decision.events[0]?.data).toEqual({
      previousToken: 1,
      note: "OPS-1",
      deadline: 62_000,
      at: 2_000,
    });
  });

  it("J7: a redrive is refused as rate-limited once the window's redrives reach the limit, after the other checks", () => {
    const dead = accepted(finish(accepted(claim(pendingJob(), 1_000)), 1, "permanent", 1_010));
    const limited = (job: Job, note: string, recentRedrives: number, deadline = 90_000) =>
      decideJob(job, redriveCommand(note, 2_000, { deadline, recentRedrives, max: 2 }));
    expect(accepted(limited(dead, "OPS-1", 1))).toMatchObject({ state: "pending" });
    expect(limited(dead, "OPS-1", 2)).toEqual({ accepted: false, refusal: "rate-limited", command: "job.redrive" });
    expect(limited(dead, "OPS-1", 3)).toMatchObject({ refusal: "rate-limited" });
    expect(limited(pendingJob(), "OPS-1", 2)).toMatchObject({ refusal: "not-dead" });
    expect(limited(dead, "fixed it", 2)).toMatchObject({ refusal: "invalid-note" });
    expect(limited(dead, "OPS-1", 2, 2_000)).toMatchObject({ refusal: "invalid-deadline" });
  });

  it("J1: no path erases the id or the payload, and dead always carries a reason", () => {
    let job = pendingJob({ maxAttempts: 2 });
    const states: Job[] = [job];
    job = accepted(claim(job, 1_000));
    states.push(job);
    job = accepted(finish(job, 1, "retry", 1_010));
    states.push(job);
    job = accepted(claim(job, 1_020));
    states.push(job);
    job = accepted(finish(job, 2, "retry", 1_030));
    states.push(job);
    for (const s of states) {
      expect(s.id).toBe("order-1");
      expect(s.payload).toEqual({ quantity: 7 });
      expect(s.state === "dead").toBe(s.reason !== null);
    }
  });

  it("heartbeat extends only the current token's held lease", () => {
    const leased = accepted(claim(pendingJob(), 1_000, "A", 100));
    const hb = (token: number, now: number) => decideJob(leased, jobCommands.heartbeat({ token, leaseMs: 500, now }));
    expect(accepted(hb(1, 1_099)).leaseUntil).toBe(1_599);
    expect(hb(2, 1_050)).toEqual({ accepted: false, refusal: "stale-token", command: "job.heartbeat" });
    expect(hb(1, 1_100)).toEqual({ accepted: false, refusal: "lease-expired", command: "job.heartbeat" });
  });

  it("the decided job always equals the fold of its stream", () => {
    const start = pendingJob();
    let job = start;
    const events = [];
    const steps = [
      () => claim(job, 1_000),
      () => claim(job, 1_100, "B"),
      () => finish(job, 2, "retry", 1_150),
      () => claim(job, 5_000),
      () => finish(job, 3, "permanent", 5_010),
      () => decideJob(job, redriveCommand("T-1", 6_000, { deadline: 99_000 })),
    ];
    for (const step of steps) {
      const decision = step();
      job = accepted(decision);
      if (decision.accepted) events.push(...decision.events);
    }
    const enqueued = jobEvents.enqueued({
      id: "order-1",
      payload: { quantity: 7 },
      maxAttempts: 3,
      deadline: 61_000,
      availableAt: 1_000,
      orderingKey: null,
      at: 1_000,
    });
    expect(foldJob([enqueued])).toEqual(start);
    expect(foldJob([enqueued, ...events])).toEqual(job);
    expect(job).toMatchObject({ state: "pending", token: 3, attempts: 0, leaseExpiries: 1 });
  });

  it("is a static machine the visualizer can read", () => {
    const json = jobMachine.toJSON() as { states: Record<string, unknown> };
    expect(Object.keys(json.states)).toEqual(["new", "pending", "leased", "done", "dead"]);
  });
});
