/**
 * A BullMQ process: one `Worker` with the harness's `concurrency`, a 2 s lock (`lockDuration`,
 * renewed every half of it while the job runs) and a 2 s stalled-job check (`stalledInterval`).
 * The processor reports the run to the recorder with `attemptsStarted` (which BullMQ increments
 * each time the job moves to active), then "done"; the worker's `completed` event, which fires
 * only once BullMQ has moved the job to completed under this worker's lock, reports "accepted".
 *
 *   tsx bullmq-child.ts <recorder url> <worker id> <queue> <concurrency>
 */
import { Worker } from "bullmq";
import { report } from "../recorder.ts";
import { childArgs } from "./child-args.ts";

const { recorder, worker, rest } = childArgs("bullmq-child.ts <recorder> <worker> <queue> <concurrency>");
const [queue = "", concurrency] = rest;
const bull = new Worker<{ job: string }>(
  queue,
  async (job) => {
    await report(recorder, "run", worker, job.data.job, job.attemptsStarted);
    await report(recorder, "done", worker, job.data.job, job.attemptsStarted);
  },
  {
    connection: { host: "127.0.0.1", port: 6379 },
    concurrency: Number(concurrency),
    lockDuration: 2_000,
    stalledInterval: 2_000,
  },
);
bull.on("error", (error) => process.stderr.write(`[bullmq ${worker}] ${error.message}\n`));
bull.on(
  "completed",
  (job) => void report(recorder, "accepted", worker, job.data.job, job.attemptsStarted).catch(() => undefined),
);
process.once("SIGTERM", () => void bull.close().then(() => process.exit(0)));
