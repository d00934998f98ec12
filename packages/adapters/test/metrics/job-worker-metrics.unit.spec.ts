import { isVerqError } from "@verq/core";
import type { JobWorkerResult } from "@verq/store";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { HANDLER_SECONDS_BUCKETS, JOB_WORKER_METRIC_NAMES, jobWorkerMetrics } from "../../src/index.ts";
import { parseExposition } from "./support/prometheus-text.ts";

/*
 * The worker's side of the metrics on a real prom-client registry: what a JobWorker's onFinished
 * hands over is counted by queue, kind, outcome and failure category, and timed; queues and kinds
 * past their bound share the label _other and are counted as overflows.
 */

const result = (fields: Partial<JobWorkerResult> = {}): JobWorkerResult => ({
  id: "job-1",
  token: 1,
  outcome: "ok",
  accepted: true,
  queue: "default",
  kind: "email.send",
  failure: null,
  handlerMs: 40,
  ...fields,
});

const scrape = async (registry: Registry) => parseExposition(await registry.metrics());

describe("jobWorkerMetrics", () => {
  it('counts results by queue, kind and outcome, failures by category, and times the handler in seconds; a kindless job has the kind ""', async () => {
    const registry = new Registry();
    const { onFinished } = jobWorkerMetrics(registry);
    onFinished(result());
    onFinished(result({ handlerMs: 1_500 }));
    onFinished(
      result({ outcome: "retry", failure: { category: "retryable", errorClass: "HttpError", code: null, status: 503 } }),
    );
    onFinished(
      result({
        outcome: "failed",
        kind: null,
        handlerMs: 3,
        failure: { category: "unexpected", errorClass: "TypeError", code: null, status: null },
      }),
    );
    onFinished(
      result({
        outcome: "permanent",
        queue: "mail",
        accepted: false,
        failure: { category: "permanent", errorClass: "Error", code: "E_GONE", status: null },
      }),
    );
    const { samples, types, labelValues } = await scrape(registry);

    expect([...types.keys()].sort()).toEqual([...JOB_WORKER_METRIC_NAMES].sort());
    expect(types.get("verq_job_handler_duration_seconds")).toBe("histogram");
    const finished = [...samples].filter(([key]) => key.startsWith("verq_jobs_finished_total"));
    expect(Object.fromEntries(finished)).toEqual({
      'verq_jobs_finished_total{kind="email.send",outcome="ok",queue="default"}': 2,
      'verq_jobs_finished_total{kind="email.send",outcome="retry",queue="default"}': 1,
      'verq_jobs_finished_total{kind="",outcome="failed",queue="default"}': 1,
      'verq_jobs_finished_total{kind="email.send",outcome="permanent",queue="mail"}': 1,
    });
    const failures = [...samples].filter(([key]) => key.startsWith("verq_job_failures_total"));
    expect(Object.fromEntries(failures)).toEqual({
      'verq_job_failures_total{category="retryable",kind="email.send",queue="default"}': 1,
      'verq_job_failures_total{category="unexpected",kind="",queue="default"}': 1,
      'verq_job_failures_total{category="permanent",kind="email.send",queue="mail"}': 1,
    });
    const histogram = (suffix: string, labels: string) => samples.get(`verq_job_handler_duration_seconds_${suffix}{${labels}}`);
    expect(histogram("count", 'kind="email.send",queue="default"')).toBe(3);
    expect(histogram("sum", 'kind="email.send",queue="default"')).toBeCloseTo(1.58, 10);
    expect(histogram("bucket", 'kind="email.send",le="0.05",queue="default"')).toBe(2);
    expect(histogram("bucket", 'kind="email.send",le="1",queue="default"')).toBe(2);
    expect(histogram("bucket", 'kind="email.send",le="2.5",queue="default"')).toBe(3);
    expect(histogram("bucket", 'kind="",le="0.005",queue="default"')).toBe(1);
    const les = [...samples.keys()]
      .filter((key) => key.startsWith('verq_job_handler_duration_seconds_bucket{kind="",le='))
      .map((key) => /le="([^"]+)"/.exec(key)?.[1]);
    expect(les).toEqual([...HANDLER_SECONDS_BUCKETS.map(String), "+Inf"]);
    // No id, no error text, no overflow.
    expect(labelValues).not.toContain("job-1");
    expect(labelValues).not.toContain("HttpError");
    expect([...samples.keys()].filter((key) => key.startsWith("verq_metric_labels_overflow_total"))).toEqual([]);
  });

  it("past maxKinds and maxQueues, later values are labelled _other and each observation so folded is counted as an overflow", async () => {
    const registry = new Registry();
    const { onFinished } = jobWorkerMetrics(registry, { maxKinds: 2, maxQueues: 1 });
    for (const kind of ["b.kind", "a.kind", "c.kind", "b.kind", "d.kind", "c.kind"]) onFinished(result({ kind }));
    onFinished(result({ queue: "other-queue", kind: "a.kind" }));
    const { samples } = await scrape(registry);
    expect(samples.get('verq_jobs_finished_total{kind="b.kind",outcome="ok",queue="default"}')).toBe(2);
    expect(samples.get('verq_jobs_finished_total{kind="a.kind",outcome="ok",queue="default"}')).toBe(1);
    expect(samples.get('verq_jobs_finished_total{kind="_other",outcome="ok",queue="default"}')).toBe(3);
    expect(samples.get('verq_jobs_finished_total{kind="a.kind",outcome="ok",queue="_other"}')).toBe(1);
    expect(samples.get('verq_job_handler_duration_seconds_count{kind="_other",queue="default"}')).toBe(3);
    expect(samples.get('verq_metric_labels_overflow_total{label="kind",metric="verq_jobs_finished_total"}')).toBe(3);
    expect(samples.get('verq_metric_labels_overflow_total{label="queue",metric="verq_jobs_finished_total"}')).toBe(1);
    expect(samples.get('verq_metric_labels_overflow_total{label="kind",metric="verq_job_handler_duration_seconds"}')).toBe(3);
    // No failure was counted, so that metric never saw a kind.
    expect(samples.has('verq_metric_labels_overflow_total{label="kind",metric="verq_job_failures_total"}')).toBe(false);
    const kinds = new Set([...samples.keys()].map((key) => /kind="([^"]*)"/.exec(key)?.[1]).filter((k) => k !== undefined));
    expect([...kinds].sort()).toEqual(["_other", "a.kind", "b.kind"]);
  });

  it("workers sharing a registry share its metrics; the callback never throws; bad options are VERQ_INVALID_ARGUMENT and register nothing", async () => {
    const registry = new Registry();
    const first = jobWorkerMetrics(registry);
    const second = jobWorkerMetrics(registry, { maxKinds: 1 });
    first.onFinished(result());
    second.onFinished(result({ kind: "other.kind" }));
    expect(() => second.onFinished({ ...result(), queue: undefined } as unknown as JobWorkerResult)).not.toThrow();
    expect(() => second.onFinished(result({ handlerMs: Number.NaN }))).not.toThrow();
    const { samples } = await scrape(registry);
    // The first call's bound (100) holds for both.
    expect(samples.get('verq_jobs_finished_total{kind="other.kind",outcome="ok",queue="default"}')).toBe(1);
    expect(samples.get('verq_jobs_finished_total{kind="email.send",outcome="ok",queue="default"}')).toBe(2);
    expect(samples.get('verq_job_handler_duration_seconds_count{kind="email.send",queue="default"}')).toBe(1);

    for (const options of [{ maxKinds: 0 }, { maxQueues: 1.5 }, { buckets: [] }, { buckets: [1, 0.5] }, { buckets: [-1] }]) {
      const fresh = new Registry();
      let error: unknown;
      try {
        jobWorkerMetrics(fresh, options);
      } catch (e) {
        error = e;
      }
      expect([options, isVerqError(error, "VERQ_INVALID_ARGUMENT")]).toEqual([options, true]);
      expect(fresh.getMetricsAsArray()).toEqual([]);
    }
  });
});
