import fc from "fast-check";
import { checkInvariants } from "./check-invariants.ts";
import type { JobsCommand } from "./jobs-command.ts";
import { DRAWN_QUEUES, type JobsModel } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";
import { modelEqual } from "./model-assert.ts";
import { storeSnapshot } from "./store-snapshot.ts";

/**
 * An operator sets (or, with `null`, removes) a queue's global concurrency limit. A change is
 * `changed: true`; the limit the queue already has is `changed: false` and writes nothing. Jobs
 * leased above a lowered limit stay leased.
 */
export class SetQueueLimitCommand implements JobsCommand {
  constructor(
    readonly queue: string,
    readonly maxLeased: number | null,
  ) {}

  static arbitrary(): fc.Arbitrary<JobsCommand> {
    return fc
      .record({ queue: fc.constantFrom(...DRAWN_QUEUES), maxLeased: fc.constantFrom(null, 1, 1, 2) })
      .map((c) => new SetQueueLimitCommand(c.queue, c.maxLeased));
  }

  check(): boolean {
    return true;
  }

  async run(m: JobsModel, r: JobsReal): Promise<void> {
    const current = m.limits.get(this.queue) ?? null;
    const before = await storeSnapshot(r);
    const result = await r.queue.setQueueLimit(this.queue, { maxLeased: this.maxLeased });
    modelEqual(
      "queue limit",
      `setQueueLimit(${this.queue}, ${this.maxLeased})`,
      [result.changed, result.queue.maxLeased],
      [current !== this.maxLeased, this.maxLeased],
    );
    if (this.maxLeased === null) m.limits.delete(this.queue);
    else m.limits.set(this.queue, this.maxLeased);
    // Jobs are not touched by a limit, and the limit a queue already has writes no event.
    const after = await storeSnapshot(r);
    modelEqual("queue limit", `setQueueLimit(${this.queue}) changed a job`, after.jobs, before.jobs);
    modelEqual(
      "queue limit",
      `events written by setQueueLimit(${this.queue}, ${this.maxLeased})`,
      after.events - before.events,
      current === this.maxLeased ? 0 : 1,
    );
    await checkInvariants(m, r);
  }

  toString(): string {
    return `setQueueLimit(${this.queue}, ${this.maxLeased})`;
  }
}
