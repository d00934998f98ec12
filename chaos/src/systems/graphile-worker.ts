/**
 * graphile-worker 0.17 at its defaults (no lock expiry but the 4-hour one, `pollInterval` 2 s
 * beside LISTEN/NOTIFY, a pool of 10) with `concurrency` set to the harness's figure. Its jobs
 * carry no fencing token: the completion deletes the job row by id whatever holds its lock, so
 * late completions are judged from the handlers' "done" reports (`late-completions.ts`).
 */
import { makeWorkerUtils } from "graphile-worker";
import pg from "pg";
import { lateSuccesses } from "../late-completions.ts";
import { spawnWorkerChild } from "../spawn-child.ts";
import { CONCURRENCY, jobId, WORKER_APPLICATION, withApplication, type ChaosSystem } from "../system.ts";

export const graphileWorker: ChaosSystem = {
  name: "graphile-worker",
  engine: "postgres",
  settings: `graphile-worker 0.17.3 \`run()\` per process at its defaults (a locked job is given to another worker only after 4 hours; pollInterval 2 s with LISTEN/NOTIFY; pool of 10) with concurrency ${CONCURRENCY}; maxAttempts 25 (default)`,
  async open(place) {
    if (place.postgresUrl === null) throw new Error("graphile-worker needs PostgreSQL");
    const url = withApplication(place.postgresUrl, "chaos-harness");
    const schema = `gw_${place.name}`;
    const utils = await makeWorkerUtils({ connectionString: url, schema });
    try {
      await utils.migrate();
      const specs = Array.from({ length: place.jobs }, (_, i) => ({ identifier: "chaos", payload: { job: jobId(i) } }));
      for (let from = 0; from < specs.length; from += 500) await utils.addJobs(specs.slice(from, from + 500));
    } finally {
      await utils.release();
    }
    // A pool, not one client: a restart or a terminated backend leaves a client unusable, and the
    // harness must go on counting.
    const client = new pg.Pool({ connectionString: url, max: 1 });
    client.on("error", () => {});
    return {
      startWorker: (worker) =>
        spawnWorkerChild("graphile-worker-child.ts", [
          place.recorder.url,
          worker,
          withApplication(place.postgresUrl ?? "", WORKER_APPLICATION),
          schema,
          String(CONCURRENCY),
        ]),
      async unfinished() {
        const { rows } = await client.query<{ n: string }>(`select count(*) as n from ${schema}._private_jobs`);
        return Number(rows[0]?.n);
      },
      lateCompletionsAccepted: () => Promise.resolve(lateSuccesses(place.recorder, place.recorder.done)),
      close: () => client.end(),
    };
  },
};
