import { JOB_QUEUES, type JobsModel } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";
import { modelFail } from "./model-assert.ts";

/** Each queue's leased count in the model, before a claim. */
export function leasedByQueue(m: JobsModel): Map<string, number> {
  return new Map(JOB_QUEUES.map((q) => [q, m.leasedIn(q)]));
}

/**
 * The queue-limit property, after a claim: no queue's leased count (read from the store) grew
 * past its limit. A count already above a limit that was lowered may stay; it must not grow.
 */
export async function checkQueueLimits(m: JobsModel, r: JobsReal, before: ReadonlyMap<string, number>): Promise<void> {
  const leasedJobs = await r.queue.list("leased", { limit: 1_000 });
  for (const queue of JOB_QUEUES) {
    const limit = m.limits.get(queue);
    const leased = leasedJobs.filter((j) => j.queue === queue).length;
    const was = before.get(queue) ?? 0;
    if (limit !== undefined && leased > was && leased > limit) {
      modelFail("queue limit", `queue ${queue} went from ${was} to ${leased} leased; its limit is ${limit}`);
    }
  }
}
