/**
 * A graphile-worker process: one runner at its defaults but for `concurrency` (the harness's
 * shared figure), whose task reports the run to the recorder (with graphile-worker's `attempts`,
 * which its job fetch increments), then reports "done" just before it returns success.
 *
 *   tsx graphile-worker-child.ts <recorder url> <worker id> <database url> <schema> <concurrency>
 */
import { Logger, run } from "graphile-worker";
import { report } from "../recorder.ts";
import { childArgs } from "./child-args.ts";

const { recorder, worker, rest } = childArgs("graphile-worker-child.ts <recorder> <worker> <url> <schema> <concurrency>");
const [connectionString, schema, concurrency] = rest;
// Errors and warnings only: graphile-worker logs every job at `info`.
const logger = new Logger(() => (level, message) => {
  const severity: string = level;
  if (severity === "error" || severity === "warning") process.stderr.write(`[graphile-worker ${worker}] ${message}\n`);
});
await run({
  connectionString,
  schema,
  concurrency: Number(concurrency),
  logger,
  crontab: "",
  taskList: {
    chaos: async (payload, helpers) => {
      const { job } = payload as { job: string };
      await report(recorder, "run", worker, job, helpers.job.attempts);
      await report(recorder, "done", worker, job, helpers.job.attempts);
    },
  },
});
