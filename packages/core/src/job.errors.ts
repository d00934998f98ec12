import { VerqError } from "./errors.ts";
import type { JobCommand } from "./job.commands.ts";
import type { JobRefusal } from "./job.machine.ts";
import type { Job, JobStreamState } from "./job.types.ts";

/** `VERQ_UNKNOWN_JOB` for `id`: no job was ever enqueued with it (its first 80 characters are named). */
export function unknownJobError(id: string): VerqError {
  return new VerqError("VERQ_UNKNOWN_JOB", `no job with id ${JSON.stringify(id.slice(0, 80))}; check the id`);
}

/**
 * The job machine's refusals that are errors, each with its coded error built from the job and
 * the command refused. Every other refusal (a stale token, nothing due, already enqueued, …) is
 * an answer, not an error: `false`, a no-op, nothing claimed.
 */
const REFUSAL_ERRORS: Partial<Record<JobRefusal, (job: JobStreamState, command: JobCommand | undefined) => VerqError>> = {
  "unknown-job": (job) => unknownJobError(job.id),
  "payload-conflict": (job) =>
    new VerqError("VERQ_ENQUEUE_CONFLICT", `job ${job.id} exists with a different payload; use a new id for different work`),
  "archived-id": (job) => {
    const archived = job.state === "new" ? job.archived : null;
    const was = archived === null ? "" : ` (it was ${archived.state}, pruned at ${new Date(archived.prunedAt).toISOString()})`;
    return new VerqError("VERQ_JOB_ARCHIVED", `job ${job.id} was pruned${was}; its id is archived, use a new id for new work`);
  },
  "not-dead": (job) => new VerqError("VERQ_NOT_DEAD", `only a dead job can be redriven; this one is ${job.state}`),
  "invalid-note": (_, command) =>
    new VerqError(
      "VERQ_INVALID_NOTE",
      `the ${command?.type === "job.cancel" ? "cancel" : "redrive"} note must be a ticket id: 1-64 ASCII letters, digits or . _ - : # /, starting with a letter or digit`,
    ),
  "invalid-deadline": () => new VerqError("VERQ_INVALID_DEADLINE", "the new deadline must be later than now"),
  "rate-limited": (_, command) => {
    const facts =
      command?.type === "job.redrive"
        ? `${command.recentRedrives} redrives in the last ${command.limit.windowMs} ms reach the limit of ${command.limit.max}`
        : "the redrives in the window reach the limit";
    return new VerqError("VERQ_REDRIVE_RATE_LIMITED", `${facts}; try again later`);
  },
};

/**
 * The coded error of a job refusal that is one, or `undefined` for a refusal that is an answer:
 * `unknown-job` → `VERQ_UNKNOWN_JOB`, `payload-conflict` → `VERQ_ENQUEUE_CONFLICT`,
 * `archived-id` → `VERQ_JOB_ARCHIVED`, `not-dead` → `VERQ_NOT_DEAD`, `invalid-note` →
 * `VERQ_INVALID_NOTE`, `invalid-deadline` → `VERQ_INVALID_DEADLINE`, `rate-limited` →
 * `VERQ_REDRIVE_RATE_LIMITED`. `job` is the job the command was decided against, `command` the
 * command refused (its facts go into the message).
 */
export function jobRefusalError(refusal: JobRefusal, job: JobStreamState, command?: JobCommand): VerqError | undefined {
  const error = REFUSAL_ERRORS[refusal];
  return error === undefined ? undefined : error(job, command);
}

/**
 * The job an enqueue refused as `already-enqueued` answers with (`created: false`, a no-op): the
 * existing job it was decided against. `undefined` for any other refusal, which is an error
 * (see {@link jobRefusalError}) or not an enqueue's answer.
 */
export function alreadyEnqueuedJob(refusal: JobRefusal, job: JobStreamState): Job | undefined {
  return refusal === "already-enqueued" && job.state !== "new" ? job : undefined;
}
