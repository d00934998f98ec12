import { JOB_IDS } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";
import { modelEqual } from "./model-assert.ts";

/**
 * (e) at the end of a run: folding every projection again from the event log
 * (`store.rebuildProjections()`) changes no job and no statistic.
 */
export async function checkRebuild(r: JobsReal): Promise<void> {
  const before = await Promise.all(JOB_IDS.map((id) => r.queue.get(id)));
  const statsBefore = await r.queue.stats();
  await r.store.rebuildProjections();
  const after = await Promise.all(JOB_IDS.map((id) => r.queue.get(id)));
  JOB_IDS.forEach((id, i) => modelEqual("e rebuild", `job ${id} after rebuildProjections`, after[i], before[i]));
  modelEqual("e rebuild", "stats after rebuildProjections", await r.queue.stats(), statsBefore);
}
