import type { Job } from "@verq/core";
import { JOB_QUEUES, type JobsModel } from "./jobs-model.ts";
import { modelFail } from "./model-assert.ts";

/**
 * Where a claimable job stands in claim order, compared element by element (lower first):
 * take-overs of expired leases first, by lease end, then enqueue order; then due pending jobs by
 * priority (higher first), due time (earlier first), then enqueue order.
 */
export function claimRank(m: JobsModel, job: Job): readonly number[] {
  const position = m.enqueuePosition(job.id);
  return job.state === "leased" ? [0, job.leaseUntil ?? 0, position] : [1, -job.priority, job.availableAt, position];
}

function ranksBefore(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x = 0, y = 0] = [a[i], b[i]];
    if (x !== y) return x < y;
  }
  return false;
}

/** Each asked queue's free slots for pending jobs before a claim (see `JobsModel.room`). */
export function roomByQueue(m: JobsModel): Map<string, number> {
  return new Map(JOB_QUEUES.map((q) => [q, m.room(q)]));
}

/**
 * The claim-order property, after a claim or a batch claim of every queue: for each job `x` it
 * handed out and each job `y` that was claimable before the call (see `JobsModel.claimable`) and
 * not handed out, `y` does not rank before `x` in {@link claimRank}, unless `y` is a due pending
 * job whose queue was full at its turn: the queue's free slots before the call (`rooms`) all went
 * to jobs of that queue handed out in this call that rank before `y`. An expired lease with budget
 * left is never passed over (its take-over keeps its queue's count).
 */
export function checkClaimOrder(
  m: JobsModel,
  method: string,
  claimable: readonly Job[],
  rooms: ReadonlyMap<string, number>,
  takenIds: readonly string[],
): void {
  const taken = claimable.filter((j) => takenIds.includes(j.id));
  const describe = (j: Job) =>
    j.state === "leased"
      ? `${j.id} (expired lease until ${j.leaseUntil})`
      : `${j.id} (${j.queue}, priority ${j.priority}, due ${j.availableAt}, enqueued #${m.enqueuePosition(j.id)})`;
  for (const x of taken) {
    for (const y of claimable) {
      if (takenIds.includes(y.id) || !ranksBefore(claimRank(m, y), claimRank(m, x))) continue;
      if (y.state === "pending") {
        const grantedBefore = taken.filter(
          (z) => z.state === "pending" && z.queue === y.queue && ranksBefore(claimRank(m, z), claimRank(m, y)),
        ).length;
        if ((rooms.get(y.queue) ?? Number.POSITIVE_INFINITY) - grantedBefore <= 0) continue;
      }
      modelFail("claim order", `${method} handed out ${describe(x)} while ${describe(y)} was claimable and not taken`);
    }
  }
}
