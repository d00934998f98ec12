import fc from "fast-check";
import { jobCommands } from "@verq/core";
import { checkDecided, decideInOrder, jobsBefore } from "./check-decided.ts";
import { checkInvariants } from "./check-invariants.ts";
import { expectVerqError } from "./expect-verq-error.ts";
import type { JobsCommand } from "./jobs-command.ts";
import { JOB_IDS, type JobsModel } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";
import { modelEqual } from "./model-assert.ts";
import { storeSnapshot } from "./store-snapshot.ts";

/** Ticket ids an operator may write, and notes that must be refused (the redrive note rule). */
const VALID_NOTES = ["OPS-9", "INC#7"] as const;
const INVALID_NOTES = ["stop it", "", "Müller-2"] as const;

/**
 * An operator cancels `target`: a business id (any state, or none), or an index into the jobs
 * that are pending or leased now. A pending or leased job goes dead(`cancelled`) with its token
 * kept, so workers that believe they hold it find their heartbeats and finishes refused (their
 * claims stay in the model for the finish and heartbeat commands to try). A done or dead job
 * answers `cancelled: false` (`not-cancellable`); an id never enqueued is `VERQ_UNKNOWN_JOB`; an
 * invalid note on a live job is `VERQ_INVALID_NOTE`; a refusal changes nothing.
 */
export class CancelCommand implements JobsCommand {
  constructor(
    readonly target: string | { readonly live: number },
    readonly note: string,
    readonly noteIsValid: boolean,
  ) {}

  static arbitrary(): fc.Arbitrary<JobsCommand> {
    const note = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...VALID_NOTES).map((n) => ({ note: n, valid: true })) },
      { weight: 1, arbitrary: fc.constantFrom(...INVALID_NOTES).map((n) => ({ note: n, valid: false })) },
    );
    const target = fc.oneof(
      { weight: 3, arbitrary: fc.nat({ max: 7 }).map((live) => ({ live })) },
      { weight: 1, arbitrary: fc.constantFrom(...JOB_IDS) },
    );
    return fc.record({ target, note }).map((c) => new CancelCommand(c.target, c.note.note, c.note.valid));
  }

  /** The business id this cancel is for, or `null` when it targets a live job and none is. */
  id(m: Readonly<JobsModel>): string | null {
    if (typeof this.target === "string") return this.target;
    const live = [...m.jobs.values()]
      .filter((j) => j.state === "pending" || j.state === "leased")
      .map((j) => j.id)
      .sort();
    return live[this.target.live % Math.max(1, live.length)] ?? null;
  }

  check(m: Readonly<JobsModel>): boolean {
    return this.id(m) !== null;
  }

  async run(m: JobsModel, r: JobsReal): Promise<void> {
    const id = this.id(m);
    if (id === null) throw new Error("CancelCommand ran without a target");
    const job = m.jobs.get(id);
    const jobs = await jobsBefore(r);
    const command = jobCommands.cancel({ note: this.note, now: m.now });
    const before = await storeSnapshot(r);
    if (job === undefined) {
      await expectVerqError("cancel VERQ_UNKNOWN_JOB", "VERQ_UNKNOWN_JOB", () => r.queue.cancel(id, { note: this.note }));
      modelEqual("cancel refusal", "a cancel of an unknown job changed the store", await storeSnapshot(r), before);
    } else if (job.state === "done" || job.state === "dead") {
      const result = await r.queue.cancel(id, { note: this.note });
      modelEqual("cancel refusal", `cancel of ${id} (${job.state})`, result, {
        cancelled: false,
        jobId: id,
        refusal: "not-cancellable",
        state: job.state,
      });
      modelEqual("cancel refusal", `a refused cancel of ${id} changed the store`, await storeSnapshot(r), before);
    } else if (!this.noteIsValid) {
      await expectVerqError("cancel VERQ_INVALID_NOTE", "VERQ_INVALID_NOTE", () => r.queue.cancel(id, { note: this.note }));
      modelEqual("cancel refusal", "a cancel with an invalid note changed the store", await storeSnapshot(r), before);
    } else {
      const result = await r.queue.cancel(id, { note: this.note });
      modelEqual("cancel", `cancel of ${id}`, result, {
        cancelled: true,
        jobId: id,
        state: job.state,
        previousToken: job.token,
        note: this.note,
        at: m.now,
      });
      m.jobs.set(id, m.cancelled(job));
    }
    await checkDecided(r, "cancel", jobs, decideInOrder(jobs, [{ id, command: () => command }]));
    await checkInvariants(m, r);
  }

  toString(): string {
    const target = typeof this.target === "string" ? this.target : `live#${this.target.live}`;
    return `cancel(${target}, ${JSON.stringify(this.note)})`;
  }
}
