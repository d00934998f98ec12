import { describe, expect, it } from "vitest";
import {
  alreadyEnqueuedJob,
  isVerqError,
  jobCommands,
  jobRefusalError,
  newJob,
  unknownJobError,
  type JobCommand,
  type JobRefusal,
  type JobStreamState,
  type VerqError,
  type VerqErrorCode,
} from "../src/index.ts";
import { pendingJob } from "./job-fixtures.ts";

const redrive = jobCommands.redrive({
  note: "INC-7",
  deadline: null,
  recentRedrives: 12,
  limit: { max: 12, windowMs: 60_000 },
  originalWindowMs: 1_000,
  now: 5_000,
});
const cancel = jobCommands.cancel({ note: "bad note!", now: 5_000 });

function errorOf(
  refusal: JobRefusal,
  job: JobStreamState = pendingJob(),
  command: JobCommand = jobCommands.claim({ owner: "w", leaseMs: 1, now: 1 }),
) {
  const error = jobRefusalError(refusal, job, command);
  if (error === undefined) throw new Error(`${refusal} is no error`);
  return error;
}

/**
 * Every refusal of the job machine: its error's code, or null where the refusal is an answer.
 * Typed as a record of JobRefusal, so a refusal added to the machine does not compile until it is
 * classified here.
 */
const REFUSAL_CODES: Record<JobRefusal, VerqErrorCode | null> = {
  "unknown-job": "VERQ_UNKNOWN_JOB",
  "payload-conflict": "VERQ_ENQUEUE_CONFLICT",
  "archived-id": "VERQ_JOB_ARCHIVED",
  "not-dead": "VERQ_NOT_DEAD",
  "invalid-note": "VERQ_INVALID_NOTE",
  "invalid-deadline": "VERQ_INVALID_DEADLINE",
  "rate-limited": "VERQ_REDRIVE_RATE_LIMITED",
  "already-enqueued": null,
  "kind-not-handled": null,
  "not-due": null,
  "queue-full": null,
  "lease-held": null,
  "not-claimable": null,
  "stale-token": null,
  "not-leased": null,
  "lease-expired": null,
  "not-finished": null,
  "too-recent": null,
  "dead-kept": null,
  "not-cancellable": null,
};

describe("the job machine's refusals as errors", () => {
  it("each refusal that is an error has its code, and it is a VerqError", () => {
    const codes = Object.entries(REFUSAL_CODES).filter((entry): entry is [JobRefusal, VerqErrorCode] => entry[1] !== null);
    expect(codes).toHaveLength(7);
    for (const [refusal, code] of codes) {
      const error: VerqError = errorOf(refusal);
      expect(isVerqError(error, error.code)).toBe(true);
      expect([refusal, error.code]).toEqual([refusal, code]);
    }
  });

  it("every other refusal is an answer, not an error", () => {
    const answers = Object.keys(REFUSAL_CODES).filter((refusal) => REFUSAL_CODES[refusal as JobRefusal] === null) as JobRefusal[];
    expect(answers).toHaveLength(13);
    for (const refusal of answers) expect([refusal, jobRefusalError(refusal, pendingJob())]).toEqual([refusal, undefined]);
  });

  it("the messages name the job and the facts of the command refused", () => {
    const job = pendingJob();
    expect(errorOf("unknown-job", newJob("order-9")).message).toBe('no job with id "order-9"; check the id');
    expect(errorOf("payload-conflict", job).message).toBe(
      "job order-1 exists with a different payload; use a new id for different work",
    );
    expect(errorOf("not-dead", job).message).toBe("only a dead job can be redriven; this one is pending");
    expect(errorOf("invalid-deadline").message).toBe("the new deadline must be later than now");
    expect(jobRefusalError("rate-limited", job, redrive)?.message).toBe(
      "12 redrives in the last 60000 ms reach the limit of 12; try again later",
    );
    expect(jobRefusalError("rate-limited", job)?.message).toBe("the redrives in the window reach the limit; try again later");
  });

  it("an invalid note is named after the command refused: a cancel's or a redrive's", () => {
    const rule = "note must be a ticket id: 1-64 ASCII letters, digits or . _ - : # /, starting with a letter or digit";
    expect(jobRefusalError("invalid-note", pendingJob(), cancel)?.message).toBe(`the cancel ${rule}`);
    expect(jobRefusalError("invalid-note", pendingJob(), redrive)?.message).toBe(`the redrive ${rule}`);
    expect(jobRefusalError("invalid-note", pendingJob())?.message).toBe(`the redrive ${rule}`);
  });

  it("an archived id names what the job was and when it was pruned, when the archive row is known", () => {
    const archived = newJob("order-2", {
      id: "order-2",
      state: "dead",
      token: 3,
      reason: "permanent",
      enqueuedAt: 0,
      finishedAt: 10,
      prunedAt: Date.UTC(2024, 0, 2, 3, 4, 5),
    });
    expect(errorOf("archived-id", archived).message).toBe(
      "job order-2 was pruned (it was dead, pruned at 2024-01-02T03:04:05.000Z); its id is archived, use a new id for new work",
    );
    expect(errorOf("archived-id", newJob("order-3")).message).toBe(
      "job order-3 was pruned; its id is archived, use a new id for new work",
    );
    expect(errorOf("archived-id", pendingJob()).message).toBe(
      "job order-1 was pruned; its id is archived, use a new id for new work",
    );
  });

  it("an unknown id is named by its first 80 characters, quoted", () => {
    const error = unknownJobError(`${"a".repeat(80)}tail`);
    expect(error.code).toBe("VERQ_UNKNOWN_JOB");
    expect(error.message).toBe(`no job with id "${"a".repeat(80)}"; check the id`);
  });
});

describe("an enqueue of an existing job with the same payload", () => {
  it("is answered with the existing job, for already-enqueued only", () => {
    const job = pendingJob();
    expect(alreadyEnqueuedJob("already-enqueued", job)).toBe(job);
    expect(alreadyEnqueuedJob("payload-conflict", job)).toBeUndefined();
    expect(alreadyEnqueuedJob("archived-id", job)).toBeUndefined();
  });

  it("has no existing job to answer with when the stream has none", () => {
    expect(alreadyEnqueuedJob("already-enqueued", newJob("job-1"))).toBeUndefined();
  });
});
