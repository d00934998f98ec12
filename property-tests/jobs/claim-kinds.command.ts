import fc from "fast-check";
import { jobCommands, type HandledKinds } from "@verq/core";
import { checkDecided, claimedInOrder, jobsBefore } from "./check-decided.ts";
import { checkInvariants } from "./check-invariants.ts";
import { checkClaimOrder } from "./check-claim-order.ts";
import { checkQueueLimits, leasedByQueue } from "./check-queue-limits.ts";
import type { JobsCommand } from "./jobs-command.ts";
import { CLAIM_KIND_SETS, JOB_QUEUES, WORKERS, handles, type JobsModel } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";
import { modelEqual, modelFail } from "./model-assert.ts";

/**
 * J3 for a claimer of some kinds: `worker` claims up to `max` jobs with `kinds`. It never gets a
 * job of a kind it does not handle (`[kinds]`, checked first); it gets exactly as many as a claim
 * limited to the jobs it handles would (due pending ones of those kinds with room in their queue,
 * and expired leases of those kinds with budget left), in claim order, each with the next token.
 * Spent leases of those kinds may be quarantined on the way, and must be when the batch came back
 * short; a spent lease of another kind is never touched: it waits for a claimer of its kind.
 */
export class ClaimKindsCommand implements JobsCommand {
  constructor(
    readonly worker: string,
    readonly leaseMs: number,
    readonly max: number,
    readonly kinds: HandledKinds,
  ) {}

  static arbitrary(): fc.Arbitrary<JobsCommand> {
    return fc
      .record({
        worker: fc.constantFrom(...WORKERS),
        leaseMs: fc.integer({ min: 1, max: 60 }),
        max: fc.integer({ min: 1, max: 3 }),
        kinds: fc.constantFrom(...CLAIM_KIND_SETS),
      })
      .map((c) => new ClaimKindsCommand(c.worker, c.leaseMs, c.max, c.kinds));
  }

  check(): boolean {
    return true;
  }

  async run(m: JobsModel, r: JobsReal): Promise<void> {
    const claimable = m.claimable(this.kinds);
    const doomed = m.doomed(this.kinds);
    const jobs = await jobsBefore(r);
    const leasedBefore = leasedByQueue(m);
    const rooms = new Map(JOB_QUEUES.map((q) => [q, m.room(q, this.kinds)]));
    const expectedCount = m.claimCapacity(this.max, this.kinds);
    const got = await r.queue.claimMany(this.worker, this.max, { leaseMs: this.leaseMs, queues: JOB_QUEUES, kinds: this.kinds });
    for (const job of got) {
      if (!handles(this.kinds, job)) {
        modelFail("kinds", `a claim of ${describeKinds(this.kinds)} handed out ${job.id}, of kind ${job.kind ?? "(none)"}`);
      }
    }
    await checkQueueLimits(m, r, leasedBefore);
    if (got.length !== expectedCount) {
      modelFail(
        "J3 claimKinds",
        `claimed ${got.length} of max ${this.max}; the jobs of its kinds and free slots give ${expectedCount}`,
      );
    }
    if (new Set(got.map((j) => j.id)).size !== got.length) modelFail("a tokens", `one batch handed out a job twice`);
    checkClaimOrder(
      m,
      "claimKinds",
      claimable,
      rooms,
      got.map((j) => j.id),
    );
    for (const job of got) {
      const before =
        claimable.find((j) => j.id === job.id) ?? modelFail("J3 claimKinds", `handed out ${job.id}, which was not claimable`);
      const issued = m.tokensIssued.get(job.id) ?? [];
      if (job.token !== Math.max(0, ...issued) + 1 || issued.includes(job.token)) {
        modelFail("a tokens", `claimKinds of ${job.id} handed out token ${job.token} after tokens [${issued.join(",")}]`);
      }
      const expected = m.claimed(before, this.worker, this.leaseMs);
      modelEqual("J3 claimKinds", `claimed ${job.id}`, job, expected);
      m.jobs.set(job.id, expected);
      m.tokensIssued.set(job.id, [...issued, job.token]);
      m.held.push({ worker: this.worker, id: job.id, token: job.token });
    }
    for (const job of doomed) {
      const dead = (await r.queue.get(job.id))?.state === "dead";
      if (!dead && got.length < this.max) modelFail("J3 claimKinds", `a short batch left ${job.id}'s spent lease unquarantined`);
      if (dead) m.jobs.set(job.id, m.expiredExhausted(job));
    }
    const command = jobCommands.claim({ owner: this.worker, leaseMs: this.leaseMs, kinds: this.kinds, now: m.now });
    await checkDecided(r, "claimKinds", jobs, await claimedInOrder(r, jobs, command));
    await checkInvariants(m, r);
  }

  toString(): string {
    return `claimKinds(${this.worker}, lease=${this.leaseMs}, max=${this.max}, ${describeKinds(this.kinds)})`;
  }
}

function describeKinds(kinds: HandledKinds): string {
  return `kinds=[${kinds.names.join(",")}]${kinds.kindless ? "+kindless" : ""}`;
}
