import fc from "fast-check";
import { jobCommands } from "@verq/core";
import { checkDecided, claimedInOrder, jobsBefore } from "./check-decided.ts";
import { checkInvariants } from "./check-invariants.ts";
import type { JobsCommand } from "./jobs-command.ts";
import { checkClaimOrder, roomByQueue } from "./check-claim-order.ts";
import { checkQueueLimits, leasedByQueue } from "./check-queue-limits.ts";
import { JOB_QUEUES, WORKERS, type JobsModel } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";
import { modelEqual, modelFail } from "./model-assert.ts";

/**
 * J3 in a batch: `worker` claims up to `max` jobs in one transaction. It must get exactly
 * min(max, claimable) distinct claimable jobs, each with the next token of its job and the same
 * projection a single claim would give; expired leases whose budget is spent may be quarantined
 * on the way, and all of them must be when the batch came back short. No claimable job it left
 * outranks one it took, unless its queue was full at its turn (see `checkClaimOrder`).
 */
export class ClaimManyCommand implements JobsCommand {
  constructor(
    readonly worker: string,
    readonly leaseMs: number,
    readonly max: number,
  ) {}

  static arbitrary(): fc.Arbitrary<JobsCommand> {
    return fc
      .record({
        worker: fc.constantFrom(...WORKERS),
        leaseMs: fc.integer({ min: 1, max: 60 }),
        max: fc.integer({ min: 1, max: 4 }),
      })
      .map((c) => new ClaimManyCommand(c.worker, c.leaseMs, c.max));
  }

  check(): boolean {
    return true;
  }

  async run(m: JobsModel, r: JobsReal): Promise<void> {
    const claimable = m.claimable();
    const doomed = m.doomed();
    const jobs = await jobsBefore(r);
    const leasedBefore = leasedByQueue(m);
    const rooms = roomByQueue(m);
    const expectedCount = m.claimCapacity(this.max);
    const got = await r.queue.claimMany(this.worker, this.max, { leaseMs: this.leaseMs, queues: JOB_QUEUES });
    // The limit first: a batch past it also has the wrong size, but this is the rule it breaks.
    await checkQueueLimits(m, r, leasedBefore);
    if (got.length !== expectedCount) {
      modelFail(
        "J3 claimMany",
        `claimed ${got.length} of max ${this.max}; the claimable jobs and free slots give ${expectedCount}`,
      );
    }
    if (new Set(got.map((j) => j.id)).size !== got.length) modelFail("a tokens", `one batch handed out a job twice`);
    checkClaimOrder(
      m,
      "claimMany",
      claimable,
      rooms,
      got.map((j) => j.id),
    );
    for (const job of got) {
      const before =
        claimable.find((j) => j.id === job.id) ?? modelFail("J3 claimMany", `handed out ${job.id}, which was not claimable`);
      const issued = m.tokensIssued.get(job.id) ?? [];
      if (job.token !== Math.max(0, ...issued) + 1 || issued.includes(job.token)) {
        modelFail("a tokens", `claimMany of ${job.id} handed out token ${job.token} after tokens [${issued.join(",")}]`);
      }
      const expected = m.claimed(before, this.worker, this.leaseMs);
      modelEqual("J3 claimMany", `claimed ${job.id}`, job, expected);
      m.jobs.set(job.id, expected);
      m.tokensIssued.set(job.id, [...issued, job.token]);
      m.held.push({ worker: this.worker, id: job.id, token: job.token });
    }
    for (const job of doomed) {
      const dead = (await r.queue.get(job.id))?.state === "dead";
      if (!dead && got.length < this.max) modelFail("J3 claimMany", `a short batch left ${job.id}'s spent lease unquarantined`);
      if (dead) m.jobs.set(job.id, m.expiredExhausted(job));
    }
    const command = jobCommands.claim({ owner: this.worker, leaseMs: this.leaseMs, now: m.now });
    await checkDecided(r, "claimMany", jobs, await claimedInOrder(r, jobs, command));
    await checkInvariants(m, r);
  }

  toString(): string {
    return `claimMany(${this.worker}, lease=${this.leaseMs}, max=${this.max})`;
  }
}
