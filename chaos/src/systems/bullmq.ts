/**
 * BullMQ 6 on the local Redis with a 2 s `lockDuration` and a 2 s `stalledInterval`, so that a
 * worker that stops renewing its lock loses the job within the scenario; `maxStalledCount` 1
 * (default). BullMQ refuses to move a job to completed without its lock token, and its
 * `completed` event fires only after that move, so the children report each accepted success
 * and late ones are those of a superseded attempt (`late-completions.ts`).
 */
import { Queue } from "bullmq";
import { lateSuccesses } from "../late-completions.ts";
import { spawnWorkerChild } from "../spawn-child.ts";
import { CONCURRENCY, jobId, type ChaosSystem } from "../system.ts";

export const bullmq: ChaosSystem = {
  name: "BullMQ",
  engine: "redis",
  settings: `BullMQ 6.7.0 on Redis 127.0.0.1:6379 as the server runs, one \`Worker\` per process, concurrency ${CONCURRENCY}, lockDuration 2000 ms (renewed every 1 s), stalledInterval 2000 ms, maxStalledCount 1 (default), attempts 1000`,
  async open(place) {
    const name = `chaos-${place.name}`;
    const queue = new Queue<{ job: string }>(name, { connection: { host: "127.0.0.1", port: 6379 } });
    queue.on("error", () => {});
    const jobs = Array.from({ length: place.jobs }, (_, i) => ({
      name: "chaos",
      data: { job: jobId(i) },
      opts: { jobId: jobId(i), attempts: 1_000 },
    }));
    for (let from = 0; from < jobs.length; from += 500) await queue.addBulk(jobs.slice(from, from + 500));
    return {
      startWorker: (worker) => spawnWorkerChild("bullmq-child.ts", [place.recorder.url, worker, name, String(CONCURRENCY)]),
      async unfinished() {
        const counts = await queue.getJobCounts("waiting", "active", "delayed", "prioritized", "waiting-children");
        return Object.values(counts).reduce((a, b) => a + b, 0);
      },
      lateCompletionsAccepted: () => Promise.resolve(lateSuccesses(place.recorder, place.recorder.accepted)),
      async close() {
        await queue.obliterate({ force: true }).catch(() => undefined);
        await queue.close();
      },
    };
  },
};
