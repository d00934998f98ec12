import type { Job } from "@verq/core";
import { JOB_IDS } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";

/** Everything a refused command must leave as it was: every job, and the size of the logs. */
export interface StoreSnapshot {
  readonly jobs: Readonly<Record<string, Job | null>>;
  readonly events: number;
  readonly redrives: number;
}

/** Reads a {@link StoreSnapshot}. Operational counters are left out: a refusal may count itself. */
export async function storeSnapshot(r: JobsReal): Promise<StoreSnapshot> {
  const jobs: Record<string, Job | null> = {};
  for (const id of JOB_IDS) jobs[id] = await r.queue.get(id);
  const events = await r.store.db
    .selectFrom("events")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  const redrives = await r.store.db
    .selectFrom("redrives")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return { jobs, events: Number(events.n), redrives: Number(redrives.n) };
}
