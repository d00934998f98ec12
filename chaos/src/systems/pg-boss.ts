/**
 * pg-boss 10 with `expireInSeconds` 5 on the run's queue, so that a job held past it is taken
 * back within the scenario, and maintenance (which does that expiry) every second instead of
 * every 120 s; retries without delay. pg-boss stores a handler's result as the job's `output`
 * when it completes the job, and the handler returns the `retryCount` it ran with: a completed
 * job whose output names an attempt older than its final `retry_count` was completed late.
 */
import PgBoss from "pg-boss";
import pg from "pg";
import { spawnWorkerChild } from "../spawn-child.ts";
import { CONCURRENCY, jobId, WORKER_APPLICATION, withApplication, type ChaosSystem } from "../system.ts";

const EXPIRE_S = 5;
const MAINTENANCE_S = 1;

export const pgBoss: ChaosSystem = {
  name: "pg-boss",
  engine: "postgres",
  settings: `pg-boss 10.4.2, ${CONCURRENCY} \`work\` loops per process (batchSize 1, includeMetadata, pollingIntervalSeconds 0.5, notifyWorker after each job), expireInSeconds ${EXPIRE_S}, maintenanceIntervalSeconds ${MAINTENANCE_S} (expiry runs in maintenance), retryLimit 1000, retryDelay 0, pool of 10 (default)`,
  async open(place) {
    if (place.postgresUrl === null) throw new Error("pg-boss needs PostgreSQL");
    const url = withApplication(place.postgresUrl, "chaos-harness");
    const schema = `boss_${place.name}`;
    const queue = "chaos";
    const boss = new PgBoss({ connectionString: url, schema, supervise: false, schedule: false });
    boss.on("error", () => {});
    await boss.start();
    await boss.createQueue(queue, { name: queue, expireInSeconds: EXPIRE_S, retryLimit: 1_000, retryDelay: 0 });
    const jobs = Array.from({ length: place.jobs }, (_, i) => ({ name: queue, data: { job: jobId(i) } }));
    for (let from = 0; from < jobs.length; from += 500) await boss.insert(jobs.slice(from, from + 500));
    await boss.stop({ graceful: false, close: true, wait: true });
    // A pool, not one client: a restart or a terminated backend leaves a client unusable, and the
    // harness must go on counting.
    const client = new pg.Pool({ connectionString: url, max: 1 });
    client.on("error", () => {});
    return {
      startWorker: (worker) =>
        spawnWorkerChild("pg-boss-child.ts", [
          place.recorder.url,
          worker,
          withApplication(place.postgresUrl ?? "", WORKER_APPLICATION),
          schema,
          queue,
          String(CONCURRENCY),
          String(MAINTENANCE_S),
        ]),
      async unfinished() {
        const { rows } = await client.query<{ n: string }>(
          `select count(*) as n from ${schema}.job where name = $1 and state < 'completed'`,
          [queue],
        );
        return Number(rows[0]?.n);
      },
      async lateCompletionsAccepted() {
        const { rows } = await client.query<{ n: string }>(
          `select count(*) as n from ${schema}.job where name = $1 and state = 'completed' and (output->>'attempt')::int < retry_count`,
          [queue],
        );
        return Number(rows[0]?.n);
      },
      close: () => client.end(),
    };
  },
};
