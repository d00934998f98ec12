/**
 * A pg-boss process: `concurrency` `work` loops on the run's queue (pg-boss 10 has no teamSize),
 * each fetching one job at a time with its metadata, so the handler knows the job's
 * `retryCount`. The handler reports the run to the recorder, reports "done", and returns
 * `{ worker, attempt }`: pg-boss stores a handler's result as the job's `output` when it
 * completes the job, so the job row itself tells which attempt's success was accepted.
 *
 *   tsx pg-boss-child.ts <recorder url> <worker id> <database url> <schema> <queue> <concurrency> <maintenance s>
 */
import PgBoss from "pg-boss";
import { report } from "../recorder.ts";
import { childArgs } from "./child-args.ts";

const { recorder, worker, rest } = childArgs(
  "pg-boss-child.ts <recorder> <worker> <url> <schema> <queue> <concurrency> <maintenance s>",
);
const [connectionString, schema, queue = "", concurrency, maintenance] = rest;
const boss = new PgBoss({ connectionString, schema, maintenanceIntervalSeconds: Number(maintenance) });
boss.on("error", (error) => process.stderr.write(`[pg-boss ${worker}] ${error.message}\n`));
await boss.start();
for (let i = 0; i < Number(concurrency); i++) {
  const loop: { id?: string } = {};
  loop.id = await boss.work<{ job: string }>(queue, { includeMetadata: true, pollingIntervalSeconds: 0.5 }, async ([job]) => {
    if (job === undefined) return null;
    await report(recorder, "run", worker, job.data.job, job.retryCount);
    await report(recorder, "done", worker, job.data.job, job.retryCount);
    // Without it the loop waits out its polling interval after every job, not only after an empty fetch.
    if (loop.id !== undefined) boss.notifyWorker(loop.id);
    return { worker, attempt: job.retryCount };
  });
}
process.once("SIGTERM", () => void boss.stop({ graceful: true, close: true, wait: true }).then(() => process.exit(0)));
