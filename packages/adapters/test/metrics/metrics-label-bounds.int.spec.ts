import { ManualClock } from "@verq/core";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { Registry } from "prom-client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobQueue, type VerqStore } from "@verq/store";
import { JobFacts, failure } from "../../../store/test/helpers/job-facts.ts";
import { jobWorkerMetrics, registerVerqMetrics } from "../../src/index.ts";
import { parseExposition } from "./support/prometheus-text.ts";

/*
 * The store's metrics bound their queue, kind and failure class labels by name: past the bound a
 * value is labelled _other (its figures summed there), the same way in every scrape and every
 * process, and each scrape counts the values it folded in verq_metric_labels_overflow_total,
 * in that same scrape. The worker's metrics share the overflow counter on one registry.
 */

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] registerVerqMetrics: bounded labels`, () => {
    let database: TestDatabase;
    let store: VerqStore;
    beforeEach(async () => {
      database = await createTestDatabase(engine, "bounds.sqlite");
      store = await database.open();
      // Kindless in default; a.one and b.two in q1; c.three in q2, dead with a FetchError; d.four in q2, dead with a TypeError.
      const clock = new ManualClock(Date.UTC(2026, 4, 1));
      const facts = new JobFacts(store, clock);
      const queue = new JobQueue(store, { clock });
      await facts.enqueue({ id: "j-0" });
      await facts.enqueue({ id: "j-1", kind: "a.one", queue: "q1" });
      await facts.enqueue({ id: "j-2", kind: "b.two", queue: "q1" });
      for (const [id, kind, errorClass] of [
        ["j-3", "c.three", "FetchError"],
        ["j-4", "d.four", "TypeError"],
      ] as const) {
        await facts.enqueue({ id, kind, queue: "q2", maxAttempts: 1 });
        const claimed = await queue.claim("w", { queues: ["q2"] });
        if (claimed?.id !== id) throw new Error(`expected to claim ${id}`);
        await facts.finish(id, claimed.token, "permanent", failure("permanent", errorClass));
      }
    });
    afterEach(async () => {
      await store.close();
      await database.dispose();
    });

    it("folds the values after the first ones by name into _other, summed, and counts them in the same scrape", async () => {
      const registry = new Registry();
      registerVerqMetrics(registry, { store, maxQueues: 1, maxKinds: 2, maxErrorClasses: 1 });
      const first = parseExposition(await registry.metrics());
      const nonZero = Object.fromEntries([...first.samples].filter(([key, value]) => key.startsWith("verq_jobs{") && value > 0));
      expect(nonZero).toEqual({
        'verq_jobs{kind="",queue="default",state="pending"}': 1,
        'verq_jobs{kind="a.one",queue="_other",state="pending"}': 1,
        'verq_jobs{kind="_other",queue="_other",state="pending"}': 1,
        'verq_jobs{kind="_other",queue="_other",state="dead"}': 2,
      });
      expect(first.samples.get('verq_jobs_dead_by_failure_class{error_class="FetchError",kind="_other",queue="_other"}')).toBe(1);
      expect(first.samples.get('verq_jobs_dead_by_failure_class{error_class="_other",kind="_other",queue="_other"}')).toBe(1);
      const overflow = (s: typeof first, metric: string, label: string) =>
        s.samples.get(`verq_metric_labels_overflow_total{label="${label}",metric="${metric}"}`);
      // Queues default | q1 q2; kinds "" a.one | b.two c.three d.four; classes FetchError | TypeError.
      expect(overflow(first, "verq_jobs", "queue")).toBe(2);
      expect(overflow(first, "verq_jobs", "kind")).toBe(3);
      expect(overflow(first, "verq_job_lease_expiries_total", "kind")).toBe(3);
      expect(overflow(first, "verq_jobs_dead_by_failure_class", "error_class")).toBe(1);
      expect(overflow(first, "verq_jobs", "error_class")).toBeUndefined();

      const second = parseExposition(await registry.metrics());
      expect(overflow(second, "verq_jobs", "kind")).toBe(6);
      // Another registry on the store (another process) folds the same values the same way.
      const other = new Registry();
      registerVerqMetrics(other, { store, maxQueues: 1, maxKinds: 2, maxErrorClasses: 1 });
      const elsewhere = parseExposition(await other.metrics());
      const series = (s: typeof first) => [...s.samples.keys()].filter((key) => !key.startsWith("verq_metric_labels_overflow"));
      expect(series(elsewhere)).toEqual(series(first));
    });

    it("the worker's metrics on the same registry share the overflow counter", async () => {
      const registry = new Registry();
      registerVerqMetrics(registry, { store, maxKinds: 2 });
      const { onFinished } = jobWorkerMetrics(registry, { maxKinds: 1 });
      for (const kind of ["a.one", "b.two"]) {
        onFinished({ id: "j", token: 1, outcome: "ok", accepted: true, queue: "q1", kind, failure: null, handlerMs: 1 });
      }
      const scraped = parseExposition(await registry.metrics());
      expect(scraped.samples.get('verq_metric_labels_overflow_total{label="kind",metric="verq_jobs_finished_total"}')).toBe(1);
      expect(scraped.samples.get('verq_metric_labels_overflow_total{label="kind",metric="verq_jobs"}')).toBe(3);
      expect(scraped.samples.get('verq_jobs_finished_total{kind="_other",outcome="ok",queue="q1"}')).toBe(1);
    });
  });
}
