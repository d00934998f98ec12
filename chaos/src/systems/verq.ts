/**
 * verq: `verq jobs work` processes (the real CLI) deliver each job to the recorder over HTTP
 * with a 2 s lease that heartbeats extend every third while the delivery runs. Late completions
 * are read from the event log: an outcome whose token is not the one of the job's latest claim
 * was accepted late, the rule the kill soak's audit applies (`stress/jobs-kill-soak.ts`).
 */
import { JobQueue, MAX_BATCH_SIZE, openStore, type StoredEvent } from "@verq/store";
import { spawnVerq } from "@verq/testing";
import { CONCURRENCY, jobId, WORKER_APPLICATION, withApplication, type ChaosSystem } from "../system.ts";

const LEASE = "2s";
const OUTCOMES = new Set(["job.completed", "job.retryScheduled", "job.died"]);

/** Outcomes in one job's stream recorded for a token other than that of the claim before them. */
export function staleOutcomes(events: readonly StoredEvent[]): number {
  let current = 0;
  let stale = 0;
  for (const event of events) {
    const token = (event.data as { token?: number }).token;
    if (event.type === "job.claimed") current = token ?? current;
    else if (OUTCOMES.has(event.type) && token !== current) stale++;
  }
  return stale;
}

export const verq: ChaosSystem = {
  name: "verq",
  engine: "postgres",
  settings: `\`verq jobs work\` processes, --lease ${LEASE} (heartbeats every third of it), --concurrency ${CONCURRENCY}, --poll 200ms (default), HTTP delivery to the recorder; store reconnect window 30 s (default)`,
  async open(place) {
    if (place.postgresUrl === null) throw new Error("verq runs here on PostgreSQL");
    const url = place.postgresUrl;
    const store = await openStore({ url: withApplication(url, "chaos-harness") });
    const queue = new JobQueue(store);
    for (let from = 0; from < place.jobs; from += MAX_BATCH_SIZE) {
      const count = Math.min(MAX_BATCH_SIZE, place.jobs - from);
      await queue.enqueueMany(
        Array.from({ length: count }, (_, i) => ({ id: jobId(from + i), payload: {}, maxAttempts: 1_000 })),
      );
    }
    return {
      startWorker(worker) {
        const child = spawnVerq([
          "jobs",
          "work",
          "--db",
          withApplication(url, WORKER_APPLICATION),
          "--target",
          `${place.recorder.url}verq/${worker}`,
          "--owner",
          `w${worker.replace(".", "-")}`,
          "--lease",
          LEASE,
          "--concurrency",
          String(CONCURRENCY),
        ]);
        child.stdout?.resume();
        child.stderr?.resume();
        return child;
      },
      async unfinished() {
        const stats = await queue.stats();
        return stats.byState.pending + stats.byState.leased;
      },
      async lateCompletionsAccepted() {
        let late = 0;
        for (let i = 0; i < place.jobs; i++) late += staleOutcomes(await queue.history(jobId(i))) > 0 ? 1 : 0;
        return late;
      },
      close: () => store.close(),
    };
  },
};
