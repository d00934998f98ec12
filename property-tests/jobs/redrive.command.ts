import fc from "fast-check";
import { jobCommands, type VerqErrorCode } from "@verq/core";
import { checkDecided, decideInOrder, jobsBefore } from "./check-decided.ts";
import { checkInvariants } from "./check-invariants.ts";
import { expectVerqError } from "./expect-verq-error.ts";
import type { JobsCommand } from "./jobs-command.ts";
import { JOB_IDS, type JobsModel } from "./jobs-model.ts";
import { MODEL_REDRIVE_LIMIT, type JobsReal } from "./jobs-real.ts";
import { modelEqual } from "./model-assert.ts";
import { storeSnapshot } from "./store-snapshot.ts";

/** Ticket ids an operator may write (SPEC J6). */
const VALID_NOTES = ["OPS-1", "INC#42", "JIRA:PAY-77"] as const;
/** Notes that must be refused: free text, empty, a line break, non-ASCII. */
const INVALID_NOTES = ["fixed it", "", "OPS-1\nDROP", "Müller-1"] as const;

/**
 * J6: an operator redrives a job with a note and a deadline `deadlineInMs` after now, or none
 * (`null`: the job's original window again, from now). The job is `target`: a business id
 * (often not dead), or an index into the dead jobs. Only a dead job is redriven (`VERQ_NOT_DEAD`
 * otherwise), only with a ticket-id note (`VERQ_INVALID_NOTE`), a future deadline
 * (`VERQ_INVALID_DEADLINE`) and below the rate limit (J7: `VERQ_REDRIVE_RATE_LIMITED` once the
 * window's redrives reach {@link MODEL_REDRIVE_LIMIT}), checked in that order; a refusal changes
 * nothing. An accepted redrive returns its audit record and makes the job pending with attempts
 * 0, keeping the token.
 */
export class RedriveCommand implements JobsCommand {
  constructor(
    readonly target: string | { readonly dead: number },
    readonly note: string,
    readonly noteIsValid: boolean,
    readonly deadlineInMs: number | null,
  ) {}

  static arbitrary(): fc.Arbitrary<JobsCommand> {
    const note = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...VALID_NOTES).map((n) => ({ note: n, valid: true })) },
      { weight: 1, arbitrary: fc.constantFrom(...INVALID_NOTES).map((n) => ({ note: n, valid: false })) },
    );
    const deadlineInMs = fc.oneof(
      { weight: 1, arbitrary: fc.constant(0) },
      { weight: 5, arbitrary: fc.integer({ min: 1, max: 250 }) },
      { weight: 2, arbitrary: fc.constant(null) },
    );
    const target = fc.oneof(
      { weight: 2, arbitrary: fc.nat({ max: 7 }).map((dead) => ({ dead })) },
      { weight: 1, arbitrary: fc.constantFrom(...JOB_IDS) },
    );
    return fc
      .record({ target, note, deadlineInMs })
      .map((c) => new RedriveCommand(c.target, c.note.note, c.note.valid, c.deadlineInMs));
  }

  /** The business id this redrive is for, or `null` when it targets a dead job and none is dead. */
  id(m: Readonly<JobsModel>): string | null {
    if (typeof this.target === "string") return this.target;
    const dead = [...m.jobs.values()]
      .filter((j) => j.state === "dead")
      .map((j) => j.id)
      .sort();
    return dead[this.target.dead % Math.max(1, dead.length)] ?? null;
  }

  check(m: Readonly<JobsModel>): boolean {
    return this.id(m) !== null;
  }

  async run(m: JobsModel, r: JobsReal): Promise<void> {
    const id = this.id(m);
    if (id === null) throw new Error("RedriveCommand ran without a target");
    const job = m.jobs.get(id);
    const deadline = m.now + (this.deadlineInMs ?? m.windows.get(id) ?? 0);
    const options = this.deadlineInMs === null ? { note: this.note } : { note: this.note, deadline };
    const recentRedrives = m.recentRedrives(MODEL_REDRIVE_LIMIT.windowMs);
    const jobs = await jobsBefore(r);
    const command = jobCommands.redrive({
      note: this.note,
      deadline: this.deadlineInMs === null ? null : deadline,
      recentRedrives,
      limit: MODEL_REDRIVE_LIMIT,
      originalWindowMs: m.windows.get(id) ?? 0,
      now: m.now,
    });
    const refusal: VerqErrorCode | null =
      job === undefined
        ? "VERQ_UNKNOWN_JOB"
        : job.state !== "dead"
          ? "VERQ_NOT_DEAD"
          : !this.noteIsValid
            ? "VERQ_INVALID_NOTE"
            : deadline <= m.now
              ? "VERQ_INVALID_DEADLINE"
              : recentRedrives >= MODEL_REDRIVE_LIMIT.max
                ? "VERQ_REDRIVE_RATE_LIMITED"
                : null;
    if (job === undefined || refusal !== null) {
      const before = await storeSnapshot(r);
      await expectVerqError(`J6 ${refusal}`, refusal ?? "VERQ_UNKNOWN_JOB", () => r.queue.redrive(id, options));
      modelEqual("J6 refusal", `a redrive refused as ${refusal} changed the store`, await storeSnapshot(r), before);
    } else {
      const record = await r.queue.redrive(id, options);
      const audit = { jobId: id, previousToken: job.token, at: m.now, note: this.note };
      modelEqual("J6 redrive", `audit record of the redrive of ${id}`, record, { ...audit, deadline });
      const token = (await r.queue.get(id))?.token;
      modelEqual("a tokens", `token of ${id} after a redrive (it is never reset)`, token, job.token);
      m.jobs.set(id, m.redriven(job, deadline));
      m.lastRedrive = audit;
      m.redriveTimes.push(m.now);
    }
    await checkDecided(r, "redrive", jobs, decideInOrder(jobs, [{ id, command: () => command }]));
    await checkInvariants(m, r);
  }

  toString(): string {
    const target = typeof this.target === "string" ? this.target : `dead#${this.target.dead}`;
    const deadline = this.deadlineInMs === null ? "original window" : `+${this.deadlineInMs}`;
    return `redrive(${target}, ${JSON.stringify(this.note)}, deadline=${deadline})`;
  }
}
