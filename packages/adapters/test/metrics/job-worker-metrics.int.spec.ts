import { ManualClock, Permanent } from "@verq/core";
import { JobQueue, JobWorker, type VerqStore } from "@verq/store";
import { createTestDatabase, type TestDatabase } from "@verq/testing";
import { Registry } from "prom-client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jobWorkerMetrics } from "../../src/index.ts";
import { parseExposition, sampleKey } from "./support/prometheus-text.ts";

/*
 * jobWorkerMetrics on a real JobWorker over a real SQLite file: each attempt the worker records
 * is counted by its queue, kind and outcome, each failure by its category, each handler timed.
 */
describe("jobWorkerMetrics on a real JobWorker", () => {
  let database: TestDatabase;
  let store: VerqStore;
  let queue: JobQueue;

  beforeEach(async () => {
    database = await createTestDatabase("sqlite");
    store = await database.open();
    queue = new JobQueue(store, { clock: new ManualClock(Date.now()) });
  });
  afterEach(async () => {
    await store.close();
    await database.dispose();
  });

  it("counts ok, permanent and a failure of unknown effect by queue, kind and outcome, and times each handler", async () => {
    await queue.enqueue({ id: "ok-1", payload: null, kind: "email.send" });
    await queue.enqueue({ id: "no-2", payload: null, kind: "email.send" });
    await queue.enqueue({ id: "boom-3", payload: null, queue: "reports" });
    const registry = new Registry();
    const { onFinished } = jobWorkerMetrics(registry);
    const sender = (job: { id: string }) => {
      if (job.id === "no-2") throw new Permanent();
      if (job.id === "boom-3") throw new TypeError("x");
      return true;
    };
    await new JobWorker(queue, { owner: "w", logger: null, sender, onFinished, queues: ["default", "reports"] }).drain();
    const { samples } = parseExposition(await registry.metrics());
    const finished = (queueName: string, kind: string, outcome: string) =>
      samples.get(sampleKey("verq_jobs_finished_total", { queue: queueName, kind, outcome }));
    expect(finished("default", "email.send", "ok")).toBe(1);
    expect(finished("default", "email.send", "permanent")).toBe(1);
    expect(finished("reports", "", "failed")).toBe(1);
    expect(samples.get(sampleKey("verq_job_failures_total", { queue: "reports", kind: "", category: "unexpected" }))).toBe(1);
    expect(
      samples.get(sampleKey("verq_job_failures_total", { queue: "default", kind: "email.send", category: "permanent" })),
    ).toBe(1);
    expect(samples.get(sampleKey("verq_job_handler_duration_seconds_count", { queue: "default", kind: "email.send" }))).toBe(2);
    expect(samples.get(sampleKey("verq_job_handler_duration_seconds_count", { queue: "reports", kind: "" }))).toBe(1);
  });
});
