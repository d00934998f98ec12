// node --import tsx src/sqlite.ts [file] [user id] [email]: a sign-up and its welcome mail on one SQLite file.
import { JobQueue, JobWorker, defineJobKind, openStore } from "@verq/store";
import { z } from "zod";

type Tables = { signups: { id: string; email: string } };
const [path = "hello.sqlite", id = "user-1", email = "ada@example.com"] = process.argv.slice(2);

const store = await openStore({ path }); // creates and migrates the file; processes of one host may share it
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

// The worker: only a return of exactly `true` is success; a throw of Retryable tries again later.
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
