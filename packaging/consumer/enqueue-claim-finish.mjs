// Plain Node, plain ESM, the installed packages only: a job's whole lifecycle on a SQLite file,
// or on PostgreSQL when the argument is a postgres:// URL.
import { JobQueue, openStore } from "@verq/store";

const store = await openStore(process.argv[2] ?? "consumer.sqlite");
const queue = new JobQueue(store);
await queue.enqueue({ id: "consumer-1", payload: { quantity: 7 }, maxAttempts: 3 });
const job = await queue.claim("consumer-worker");
if (job === null) throw new Error("nothing to claim");
const accepted = await queue.finish(job.id, job.token, "ok");
const stats = await queue.stats();
await store.close();
console.log(JSON.stringify({ token: job.token, accepted, stats }));
