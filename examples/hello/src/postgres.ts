// node --import tsx src/postgres.ts [url] [user id] [email]: the same service and worker on PostgreSQL.
import { JobQueue, JobWorker, defineJobKind, openStore } from "@verq/store";
import { z } from "zod";

type Tables = { signups: { id: string; email: string } };
const [url = "postgres://127.0.0.1:5432/hello", id = "user-1", email = "ada@example.com"] = process.argv.slice(2);

const store = await openStore({ url, poolSize: 4 }); // creates verq's tables on first open; any number of hosts
const queue = new JobQueue(store);
await store.db.schema
  .createTable("signups")
  .ifNotExists()
  .addColumn("id", "text", (column) => column.primaryKey())
  .addColumn("email", "text", (column) => column.notNull())
  .execute();

// A kind of job: the schema of its payload (any Standard Schema library) types the enqueue and the handler.
const welcomeMail = defineJobKind({ name: "welcome-mail", schema: z.object({ email: z.email() }) });

// The service: its own row and the job commit together, or neither does.
await store.transaction(async (trx) => {
  await trx
    .withTables<Tables>()
    .insertInto("signups")
    .values({ id, email })
    .onConflict((c) => c.doNothing())
    .execute();
  await queue.enqueue(welcomeMail, { email }, { id: `welcome-${id}`, maxAttempts: 5, trx }); // again: a no-op
});

// The worker: claims skip rows other hosts hold (SKIP LOCKED); idle workers wake on NOTIFY.
const worker = new JobWorker(queue, {
  owner: `mailer-${process.pid}`,
  handlers: [
    welcomeMail.handler((job) => {
      console.log(`welcome mail to ${job.payload.email}: job ${job.id}, token ${job.token}`);
      return true;
    }),
  ],
});
const report = await worker.drain(); // until nothing is due; a service calls start(), and stop() on SIGTERM
console.log(`sent ${report.ok}`);
await store.close();
