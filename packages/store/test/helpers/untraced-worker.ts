/**
 * Child process for the tracing tests: enqueues a job and works it to done through a
 * `JobWorker`, then prints one JSON line: whether `@opentelemetry/api` was found, the job's state
 * and its stored trace context. Usage:
 *
 *   node --import tsx untraced-worker.ts <db>
 */
import { JobQueue, JobWorker, checkStore, openStore, verqTracing } from "@verq/store";

const [dbPath] = process.argv.slice(2);
if (dbPath === undefined) throw new Error("usage: untraced-worker.ts <db>");

const store = await openStore({ path: dbPath });
try {
  const queue = new JobQueue(store);
  await queue.enqueue({ id: "untraced-1", payload: { n: 1 }, kind: "mail" });
  await new JobWorker(queue, { owner: "w", logger: null, sender: () => true }).drain();
  const job = await queue.get("untraced-1");
  const { findings } = await checkStore(store);
  process.stdout.write(
    `${JSON.stringify({ installed: verqTracing().installed, state: job?.state, traceContext: job?.traceContext ?? null, findings })}\n`,
  );
} finally {
  await store.close();
}
