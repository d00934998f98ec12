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
 * J3: `worker` claims one job. It must get a claimable job (due pending, or an expired lease
 * with budget left) with the next token of that job, or `null` only when none is claimable.
 * Expired leases whose budget is spent may be quarantined on the way, and must be when the
 * claim returns `null`. The job it gets is the first claimable one in claim order (see
 * `checkClaimOrder`).
 */
export class ClaimCommand implements JobsCommand {
  constructor(
    readonly worker: string,
    readonly leaseMs: number,
  ) {}

  static arbitrary(): fc.Arbitrary<JobsCommand> {
    return fc
      .record({ worker: fc.constantFrom(...WORKERS), leaseMs: fc.integer({ min: 1, max: 60 }) })
      .map((c) => new ClaimCommand(c.worker, c.leaseMs));
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
    const got = await r.queue.claim(this.worker, { leaseMs: this.leaseMs, queues: JOB_QUEUES });
    checkClaimOrder(m, "claim", claimable, rooms, got === null ? [] : [got.id]);
    if (got === null) {
      if (claimable.length > 0) {
        modelFail("J3 claim", `returned null while ${claimable.map((j) => j.id).join(", ")} could be claimed`);
      }
      for (const job of doomed) m.jobs.set(job.id, m.expiredExhausted(job));
    } else {
      const before =
        claimable.find((j) => j.id === got.id) ?? modelFail("J3 claim", `handed out ${got.id}, which was not claimable`);
      const issued = m.tokensIssued.get(got.id) ?? [];
      const previous = Math.max(0, ...issued);
      if (got.token !== previous + 1 || issued.includes(got.token)) {
        modelFail("a tokens", `claim of ${got.id} handed out token ${got.token} after tokens [${issued.join(",")}]`);
      }
      const expected = m.claimed(before, this.worker, this.leaseMs);
      modelEqual("J3 claim", `claimed ${got.id}`, got, expected);
      m.jobs.set(got.id, expected);
      m.tokensIssued.set(got.id, [...issued, got.token]);
      m.held.push({ worker: this.worker, id: got.id, token: got.token });
      for (const job of doomed) {
        if ((await r.queue.get(job.id))?.state === "dead") m.jobs.set(job.id, m.expiredExhausted(job));
      }
    }
    await checkQueueLimits(m, r, leasedBefore);
    const command = jobCommands.claim({ owner: this.worker, leaseMs: this.leaseMs, now: m.now });
    await checkDecided(r, "claim", jobs, await claimedInOrder(r, jobs, command));
    await checkInvariants(m, r);
  }

  toString(): string {
    return `claim(${this.worker}, lease=${this.leaseMs})`;
  }
}
