import { describe, expect, it } from "vitest";
import {
  MAX_CLAIM_KINDS,
  checkHandledKinds,
  decideJob,
  jobCommands,
  newJob,
  type HandledKinds,
  type Job,
  type JobDecision,
} from "../src/index.ts";

function accepted(decision: JobDecision): Job {
  if (!decision.accepted) throw new Error(`refused: ${decision.refusal}`);
  return decision.after;
}

/** A job enqueued at 1 000 (due then, 3 attempts), of `kind` (`null`: none), through the machine. */
function jobOf(kind: string | null, overrides: { maxAttempts?: number } = {}): Job {
  return accepted(
    decideJob(
      newJob("order-1"),
      jobCommands.enqueue({
        payload: { quantity: 7 },
        maxAttempts: overrides.maxAttempts ?? 3,
        deadline: 61_000,
        availableAt: 1_000,
        orderingKey: null,
        ...(kind === null ? {} : { kind }),
        now: 1_000,
      }),
    ),
  );
}

const claim = (job: Job, now: number, kinds?: HandledKinds, owner = "A") =>
  decideJob(job, jobCommands.claim({ owner, leaseMs: 100, ...(kinds === undefined ? {} : { kinds }), now }));
const notHandled = { accepted: false, refusal: "kind-not-handled", command: "job.claim" };

describe("kinds in the job machine", () => {
  it("an enqueue with a kind records it on the event and the job; without one, neither has it", () => {
    const decision = decideJob(
      newJob("order-1"),
      jobCommands.enqueue({
        payload: 1,
        maxAttempts: 3,
        deadline: 9_000,
        availableAt: 1_000,
        orderingKey: null,
        kind: "mail",
        now: 1_000,
      }),
    );
    expect(accepted(decision).kind).toBe("mail");
    expect(decision.accepted && decision.events[0]?.data).toMatchObject({ kind: "mail" });
    const plain = decideJob(
      newJob("order-1"),
      jobCommands.enqueue({ payload: 1, maxAttempts: 3, deadline: 9_000, availableAt: 1_000, orderingKey: null, now: 1_000 }),
    );
    expect(accepted(plain).kind).toBeNull();
    expect(plain.accepted && plain.events[0]?.data).not.toHaveProperty("kind");
  });

  it("kindNotHandled, pending: a job of a kind is claimed only by a claimer that names it, or one that names no kinds", () => {
    const mail = jobOf("mail");
    for (const kinds of [undefined, { names: ["mail"], kindless: false }, { names: ["other", "mail"], kindless: true }]) {
      expect(accepted(claim(mail, 1_000, kinds))).toMatchObject({ state: "leased", token: 1, attempts: 1, owner: "A" });
    }
    for (const kinds of [
      { names: ["other"], kindless: false },
      { names: ["other"], kindless: true },
      { names: [], kindless: true },
      { names: ["Mail", "mail2"], kindless: false },
    ]) {
      expect(claim(mail, 1_000, kinds)).toEqual(notHandled);
    }
  });

  it("kindNotHandled, pending: a job without a kind is claimed only by a claimer that takes kindless jobs, or names no kinds", () => {
    const plain = jobOf(null);
    for (const kinds of [undefined, { names: [], kindless: true }, { names: ["mail"], kindless: true }]) {
      expect(accepted(claim(plain, 1_000, kinds))).toMatchObject({ state: "leased", token: 1 });
    }
    for (const kinds of [
      { names: ["mail"], kindless: false },
      { names: ["null", ""], kindless: false },
    ]) {
      expect(claim(plain, 1_000, kinds)).toEqual(notHandled);
    }
  });

  it("kindNotHandled comes first for a pending job: before the queue's limit and before the due time", () => {
    const other = { names: ["other"], kindless: false };
    const early = { ...jobOf("mail"), availableAt: 5_000 };
    expect(claim(early, 1_000, other)).toEqual(notHandled);
    expect(claim(early, 1_000, { names: ["mail"], kindless: false })).toMatchObject({ refusal: "not-due" });
    const full = jobCommands.claim({
      owner: "A",
      leaseMs: 100,
      kinds: other,
      queueLoad: { maxLeased: 1, leased: 1 },
      now: 1_000,
    });
    expect(decideJob(jobOf("mail"), full)).toEqual(notHandled);
  });

  it("kindNotHandled, leased: an expired lease is taken over only by a claimer of its kind; a held one is lease-held for anyone", () => {
    const leased = accepted(claim(jobOf("mail"), 1_000));
    expect(claim(leased, 1_099, { names: ["other"], kindless: true }, "B")).toMatchObject({ refusal: "lease-held" });
    expect(claim(leased, 1_100, { names: ["other"], kindless: true }, "B")).toEqual(notHandled);
    expect(accepted(claim(leased, 1_100, { names: ["mail"], kindless: false }, "B"))).toMatchObject({
      state: "leased",
      token: 2,
      owner: "B",
      leaseExpiries: 1,
    });
    const plainLeased = accepted(claim(jobOf(null), 1_000));
    expect(claim(plainLeased, 1_100, { names: ["mail"], kindless: false }, "B")).toEqual(notHandled);
    expect(accepted(claim(plainLeased, 1_100, { names: [], kindless: true }, "B"))).toMatchObject({ token: 2, owner: "B" });
  });

  it("a claimer that does not handle the kind never quarantines an expired last attempt: the job waits for one that does", () => {
    const last = accepted(claim(jobOf("mail", { maxAttempts: 1 }), 1_000));
    expect(claim(last, 1_100, { names: ["other"], kindless: true }, "B")).toEqual(notHandled);
    expect(accepted(claim(last, 1_100, { names: ["mail"], kindless: false }, "B"))).toMatchObject({
      state: "dead",
      reason: "exhausted",
      token: 1,
    });
  });

  it("queuePriorityOrKindDiffers: another kind for an existing id is a payload conflict, whatever the payload", () => {
    const again = (kind: string | undefined) =>
      jobCommands.enqueue({
        payload: { quantity: 7 },
        maxAttempts: 3,
        deadline: 61_000,
        availableAt: 1_000,
        orderingKey: null,
        ...(kind === undefined ? {} : { kind }),
        now: 2_000,
      });
    const refused = (refusal: string) => ({ accepted: false, refusal, command: "job.enqueue" });
    expect(decideJob(jobOf("mail"), again("mail"))).toEqual(refused("already-enqueued"));
    expect(decideJob(jobOf("mail"), again("other"))).toEqual(refused("payload-conflict"));
    expect(decideJob(jobOf("mail"), again(undefined))).toEqual(refused("payload-conflict"));
    expect(decideJob(jobOf(null), again(undefined))).toEqual(refused("already-enqueued"));
    expect(decideJob(jobOf(null), again("mail"))).toEqual(refused("payload-conflict"));
  });
});

describe("checkHandledKinds", () => {
  it("returns the kinds, each name once, with kindless as given", () => {
    expect(checkHandledKinds({ names: ["a", "b", "a"], kindless: false })).toEqual({ names: ["a", "b"], kindless: false });
    expect(checkHandledKinds({ names: [], kindless: true })).toEqual({ names: [], kindless: true });
    const most = Array.from({ length: MAX_CLAIM_KINDS }, (_, i) => `k${i}`);
    expect(checkHandledKinds({ names: most, kindless: false }).names).toHaveLength(MAX_CLAIM_KINDS);
  });

  it("refuses what is not kinds with VERQ_INVALID_ARGUMENT", () => {
    const refused = (value: unknown, message: RegExp) =>
      expect(() => checkHandledKinds(value)).toThrow(
        expect.objectContaining({ code: "VERQ_INVALID_ARGUMENT", message: expect.stringMatching(message) as unknown }),
      );
    refused(null, /^kinds is \{ names/);
    // A function is no kinds, even one that carries their fields.
    refused(
      Object.assign(() => undefined, { names: ["mail"], kindless: false }),
      /^kinds is \{ names/,
    );
    // A kind name is a string: an array whose text would match is not one.
    refused({ names: [["mail"]], kindless: false }, /a job kind is a letter/);
    refused("mail", /^kinds is \{ names/);
    refused({ names: "mail", kindless: true }, /^kinds is \{ names/);
    refused({ names: ["mail"] }, /^kinds is \{ names/);
    refused({ names: ["mail"], kindless: "yes" }, /^kinds is \{ names/);
    refused({ names: [], kindless: false }, /must name a kind or take jobs without a kind/);
    refused({ names: ["no way"], kindless: true }, /a job kind is a letter/);
    refused(
      { names: [...Array.from({ length: MAX_CLAIM_KINDS }, (_, i) => `k${i}`), "one-more"], kindless: false },
      /at most 100 kinds/,
    );
  });
});
