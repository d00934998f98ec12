import { describe, expect, it } from "vitest";
import {
  decideJob,
  foldJob,
  jobCommands,
  jobEvents,
  newJob,
  type HandledKinds,
  type Job,
  type JobDecision,
  type JobFailure,
} from "../src/index.ts";
import { pendingJob } from "./job-fixtures.ts";

function accepted(decision: JobDecision): Job {
  if (!decision.accepted) throw new Error(`refused: ${decision.refusal}`);
  return decision.after;
}

const TYPE_ERROR: JobFailure = { category: "unexpected", errorClass: "TypeError", code: null, status: null };
const UPSTREAM: JobFailure = { category: "retryable", errorClass: "FetchError", code: "ECONNRESET", status: 503 };

const claim = (job: Job, now: number, kinds?: HandledKinds) =>
  decideJob(job, jobCommands.claim({ owner: "A", leaseMs: 100, now, ...(kinds === undefined ? {} : { kinds }) }));
const fail = (job: Job | ReturnType<typeof newJob>, token: number, now: number, failure = TYPE_ERROR) =>
  decideJob(job, jobCommands.fail({ token, failure, now }));

describe("job.fail: a failure whose effect is unknown (SPEC J5, W1)", () => {
  it("the holder of the current token records it: leased → leased, token, lease and attempts kept, lastFailure set", () => {
    const leased = accepted(claim(pendingJob(), 1_000));
    const decision = fail(leased, 1, 1_040);
    expect(decision.accepted && decision.events).toEqual([
      jobEvents.failed({ token: 1, attempt: 1, failure: TYPE_ERROR, at: 1_040 }),
    ]);
    const after = accepted(decision);
    expect(after).toEqual({
      ...leased,
      lastFailure: { ...TYPE_ERROR, attempt: 1, token: 1, at: 1_040 },
      updatedAt: 1_040,
      version: leased.version + 1,
    });
    // The lease still runs out as it would have: J5 keeps the job until then.
    expect(claim(after, 1_099)).toMatchObject({ accepted: false, refusal: "lease-held" });
    const next = accepted(claim(after, 1_100));
    expect(next).toMatchObject({ token: 2, attempts: 2, lastFailure: { token: 1 } });
  });

  it("is accepted after the lease ran out as long as nobody claimed the job since, as a finish is", () => {
    const leased = accepted(claim(pendingJob(), 1_000));
    expect(accepted(fail(leased, 1, 5_000))).toMatchObject({ state: "leased", token: 1, leaseUntil: 1_100 });
  });

  it("a stale token is refused and changes nothing", () => {
    const first = accepted(claim(pendingJob(), 1_000));
    const second = accepted(claim(first, 1_100));
    expect(fail(second, 1, 1_150)).toEqual({ accepted: false, refusal: "stale-token", command: "job.fail" });
    expect(fail(second, 3, 1_150)).toEqual({ accepted: false, refusal: "stale-token", command: "job.fail" });
  });

  it("a job that is not leased refuses it as not-leased, a stream with no job as unknown-job", () => {
    const pending = pendingJob();
    const done = accepted(
      decideJob(accepted(claim(pending, 1_000)), jobCommands.finish({ token: 1, outcome: "ok", retryDelayMs: 0, now: 1_010 })),
    );
    const dead = accepted(decideJob(pending, jobCommands.cancel({ note: "OPS-1", now: 1_010 })));
    for (const job of [pending, done, dead]) {
      expect(fail(job, job.token, 2_000)).toEqual({ accepted: false, refusal: "not-leased", command: "job.fail" });
    }
    expect(fail(newJob("nothing"), 0, 2_000)).toEqual({ accepted: false, refusal: "unknown-job", command: "job.fail" });
  });

  it("a finish that reports its failure records it, with the attempt, on job.retryScheduled and job.died", () => {
    const leased = accepted(claim(pendingJob(), 1_000));
    const retry = decideJob(
      leased,
      jobCommands.finish({ token: 1, outcome: "retry", retryDelayMs: 10, failure: UPSTREAM, now: 1_020 }),
    );
    expect(retry.accepted && retry.events).toEqual([
      jobEvents.retryScheduled({ token: 1, availableAt: 1_030, failure: UPSTREAM, attempt: 1, at: 1_020 }),
    ]);
    expect(accepted(retry).lastFailure).toEqual({ ...UPSTREAM, attempt: 1, token: 1, at: 1_020 });

    const permanent = { ...UPSTREAM, category: "permanent" as const, status: 404 };
    const died = decideJob(
      leased,
      jobCommands.finish({ token: 1, outcome: "permanent", retryDelayMs: 0, failure: permanent, now: 1_020 }),
    );
    expect(died.accepted && died.events).toEqual([
      jobEvents.died({ token: 1, reason: "permanent", failure: permanent, attempt: 1, at: 1_020 }),
    ]);
    // Without a failure, the events are as they always were.
    const plain = decideJob(leased, jobCommands.finish({ token: 1, outcome: "retry", retryDelayMs: 10, now: 1_020 }));
    expect(plain.accepted && plain.events).toEqual([jobEvents.retryScheduled({ token: 1, availableAt: 1_030, at: 1_020 })]);
    expect(accepted(plain).lastFailure).toBeNull();
  });

  it("the fold keeps the last failure through a lease expiry, a death and a redrive", () => {
    const events = [
      jobEvents.enqueued({ id: "j", payload: null, maxAttempts: 1, deadline: 9_000, availableAt: 0, orderingKey: null, at: 0 }),
      jobEvents.claimed({ token: 1, owner: "A", leaseUntil: 100, at: 0 }),
      jobEvents.failed({ token: 1, attempt: 1, failure: TYPE_ERROR, at: 10 }),
      jobEvents.leaseExpired({ token: 1, owner: "A", at: 100 }),
      jobEvents.died({ token: 1, reason: "exhausted", at: 100 }),
      jobEvents.redriven({ previousToken: 1, note: "OPS-2", deadline: 9_000, at: 200 }),
    ];
    expect(foldJob(events)).toMatchObject({ state: "pending", lastFailure: { ...TYPE_ERROR, attempt: 1, token: 1, at: 10 } });
    expect(foldJob(events.slice(0, 5))).toMatchObject({
      state: "dead",
      reason: "exhausted",
      lastFailure: { errorClass: "TypeError" },
    });
  });
});

describe("kinds: a claimer takes only the kinds it handles", () => {
  const kinded = (kind: string | null): Job => ({ ...pendingJob(), kind });
  const handles: HandledKinds = { names: ["send-email"], kindless: false };

  it("a pending job of a kind the claimer handles is claimed; another kind, or a kindless job without kindless, is refused", () => {
    expect(accepted(claim(kinded("send-email"), 1_000, handles))).toMatchObject({ state: "leased", token: 1 });
    expect(claim(kinded("resize-image"), 1_000, handles)).toEqual({
      accepted: false,
      refusal: "kind-not-handled",
      command: "job.claim",
    });
    expect(claim(kinded(null), 1_000, handles)).toMatchObject({ refusal: "kind-not-handled" });
    expect(accepted(claim(kinded(null), 1_000, { names: [], kindless: true }))).toMatchObject({ state: "leased" });
    // No kinds given: every job, whatever its kind.
    expect(accepted(claim(kinded("resize-image"), 1_000))).toMatchObject({ state: "leased" });
  });

  it("an expired lease of a kind the claimer does not handle is not taken over; a held one is still lease-held", () => {
    const leased = accepted(claim(kinded("resize-image"), 1_000));
    expect(claim(leased, 1_050, handles)).toMatchObject({ refusal: "lease-held" });
    expect(claim(leased, 1_100, handles)).toMatchObject({ refusal: "kind-not-handled" });
    expect(accepted(claim(leased, 1_100, { names: ["resize-image"], kindless: false }))).toMatchObject({ token: 2 });
  });

  it("an enqueue of an existing id with another kind is a payload conflict", () => {
    const job = kinded("send-email");
    const again = (kind?: string) =>
      decideJob(
        job,
        jobCommands.enqueue({
          payload: job.payload,
          maxAttempts: 3,
          deadline: 61_000,
          availableAt: 1_000,
          orderingKey: null,
          ...(kind === undefined ? {} : { kind }),
          now: 2_000,
        }),
      );
    expect(again("send-email")).toMatchObject({ refusal: "already-enqueued" });
    expect(again("resize-image")).toMatchObject({ refusal: "payload-conflict" });
    expect(again()).toMatchObject({ refusal: "payload-conflict" });
  });
});
