import { evolveJob, jobEvents, newJob, type Job } from "../src/index.ts";

/** A pending job enqueued at `at`, due at once, with the given budget and deadline. */
export function pendingJob(overrides: { maxAttempts?: number; deadline?: number; at?: number } = {}): Job {
  const at = overrides.at ?? 1_000;
  return evolveJob(
    newJob("order-1"),
    jobEvents.enqueued({
      id: "order-1",
      payload: { quantity: 7 },
      maxAttempts: overrides.maxAttempts ?? 3,
      deadline: overrides.deadline ?? at + 60_000,
      availableAt: at,
      orderingKey: null,
      at,
    }),
  );
}
