import { JobQueue, type VerqStore } from "@verq/store";

/**
 * Makes `count` dead jobs (`dead-0000`, `dead-0001`, …) on `store` through the queue's own path:
 * enqueued with one attempt, claimed, finished `permanent`, in batches of up to 1,000.
 */
export async function makeDeadJobs(store: VerqStore, count: number, prefix = "dead"): Promise<string[]> {
  const queue = new JobQueue(store, { defaultMaxAttempts: 1 });
  const ids = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(4, "0")}`);
  for (let i = 0; i < ids.length; i += 1_000) {
    const batch = ids.slice(i, i + 1_000);
    await queue.enqueueMany(batch.map((id) => ({ id, payload: { id } })));
    const claimed = await queue.claimMany("maker", batch.length);
    await queue.finishMany(claimed.map((j) => ({ id: j.id, token: j.token, outcome: "permanent" as const })));
  }
  return ids;
}

/** Every job's state, token, attempts and count of audit rows, by id: what two runs must agree on. */
export async function finalState(store: VerqStore): Promise<Record<string, string>> {
  const jobs = await store.db.selectFrom("jobs").select(["id", "state", "token", "attempts"]).orderBy("id").execute();
  const audits = await store.db
    .selectFrom("redrives")
    .select((eb) => ["job_id", eb.fn.countAll<number>().as("n")])
    .groupBy("job_id")
    .execute();
  const redrives = new Map(audits.map((a) => [a.job_id, Number(a.n)]));
  return Object.fromEntries(
    jobs.map((j) => [
      j.id,
      `${j.state} token=${Number(j.token)} attempts=${Number(j.attempts)} redrives=${redrives.get(j.id) ?? 0}`,
    ]),
  );
}
