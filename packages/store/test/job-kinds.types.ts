// Type-level tests of job kinds, checked by `pnpm typecheck` (the root tsconfig includes this
// folder) and never run: each `@ts-expect-error` is a misuse that must not compile, and the check
// fails when one of them compiles (an unused `@ts-expect-error` is an error itself).
// job-kinds-types.unit.spec.ts runs the compiler on a misuse and asserts its diagnostic.
import { z } from "zod";
import { JobWorker, defineJobKind, type JobQueue, type KindJob } from "../src/index.ts";

const sendEmail = defineJobKind({
  name: "send-email",
  schema: z.object({ to: z.email(), attempt: z.number().int().default(1) }),
  id: (payload) => `mail-${payload.to}`,
});

export async function typeChecks(queue: JobQueue): Promise<void> {
  // The schema's input: `attempt` has a default, so it may be left out.
  await queue.enqueue(sendEmail, { to: "ada@example.com" });
  await queue.enqueue(sendEmail, { to: "ada@example.com", attempt: 2 }, { id: "welcome-1", queue: "mail", priority: 3 });
  await queue.enqueueMany(sendEmail, [{ to: "a@example.com" }, { to: "b@example.com" }]);
  // The plain form is unchanged, and takes a kind by name.
  await queue.enqueue({ id: "plain-1", payload: { anything: [1, 2] }, kind: "send-email" });

  // @ts-expect-error a payload field of the wrong type
  await queue.enqueue(sendEmail, { to: 1 });
  // @ts-expect-error a missing field
  await queue.enqueue(sendEmail, {});
  // @ts-expect-error a field the schema does not have (an object literal is checked for excess fields)
  await queue.enqueue(sendEmail, { to: "ada@example.com", cc: "bob@example.com" });
  // @ts-expect-error enqueueMany of a kind takes no id: one id names one job
  await queue.enqueueMany(sendEmail, [{ to: "a@example.com" }], { id: "x" });
  // @ts-expect-error a wrong payload among many
  await queue.enqueueMany(sendEmail, [{ to: "a@example.com" }, { to: false }]);

  const handler = sendEmail.handler(
    (job) => {
      // The schema's output: `attempt` is always there.
      const to: string = job.payload.to;
      const attempt: number = job.payload.attempt;
      const kind: string = job.kind;
      // @ts-expect-error a field the schema does not have
      void job.payload.cc;
      // @ts-expect-error the payload is a string field, not a number
      const wrong: number = job.payload.to;
      return to.length > 0 && attempt > 0 && kind.length > 0 && wrong === 0;
    },
    { classify: (error) => (error instanceof RangeError ? "permanent" : undefined) },
  );
  new JobWorker(queue, { owner: "w1", handlers: [handler] });
  new JobWorker(queue, { owner: "w1", handlers: [handler], sender: () => true });
  // @ts-expect-error a handler must be a kind's handler, not a bare function
  new JobWorker(queue, { owner: "w1", handlers: [() => true] });
  // @ts-expect-error a classifier answers retry, permanent or nothing
  sendEmail.handler(() => true, { classify: () => "later" });
}

/** The job a handler of `send-email` gets. */
export type SendEmailJob = KindJob<{ to: string; attempt: number }>;
