import { VerqError } from "@verq/core";
import type { JobWorkerResult } from "@verq/store";
import { Counter, Histogram, type Registry } from "prom-client";
import { checkBound, KINDLESS_LABEL_VALUE, LabelBound, overflowCounter, OVERFLOW_METRIC_NAME } from "./label-bounds.ts";

/** Options of {@link jobWorkerMetrics}. */
export interface JobWorkerMetricsOptions {
  /**
   * The most distinct queues and kinds each metric labels by their own names: 100 each. The first
   * ones this process sees keep their names; every later one is labelled `_other` and counted in
   * `verq_metric_labels_overflow_total{metric,label}`.
   */
  readonly maxQueues?: number;
  readonly maxKinds?: number;
  /** The upper bounds of the handler duration histogram's buckets, in seconds: {@link HANDLER_SECONDS_BUCKETS}. */
  readonly buckets?: readonly number[];
}

/** What {@link jobWorkerMetrics} returns: the callback to pass as `JobWorker`'s `onFinished`. */
export interface JobWorkerMetrics {
  readonly onFinished: (result: JobWorkerResult) => void;
}

/**
 * The buckets of `verq_job_handler_duration_seconds` unless told: from 5 ms (a handler that
 * writes a row) to 5 minutes (a handler that calls a slow service), about 2.5× apart.
 */
export const HANDLER_SECONDS_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
];

/** The names of the metrics {@link jobWorkerMetrics} adds, as they appear in the exposition. */
export const JOB_WORKER_METRIC_NAMES = [
  "verq_jobs_finished_total",
  "verq_job_failures_total",
  "verq_job_handler_duration_seconds",
  OVERFLOW_METRIC_NAME,
] as const;

/** One registry's worker metrics with their label bounds: made once, shared by every worker of the process that uses it. */
interface WorkerMetricSet {
  readonly onFinished: (result: JobWorkerResult) => void;
}

const sets = new WeakMap<Registry, WorkerMetricSet>();

/**
 * The worker's side of verq's metrics, counted in this process as a `JobWorker` finishes jobs:
 * `verq_jobs_finished_total{queue,kind,outcome}` (every result, `outcome` ok, retry, permanent or
 * failed, including a finish refused because the lease was lost), `verq_job_failures_total
 * {queue,kind,category}` (each result with a failure, by its category: unexpected, bad-ack,
 * retryable, permanent) and `verq_job_handler_duration_seconds{queue,kind}` (a histogram of how
 * long the handler ran). A job without a kind has the kind `""`. Queues and kinds are bounded per
 * metric (`maxQueues`, `maxKinds`, 100 each; see {@link JobWorkerMetricsOptions}). No label is a
 * job id, an error's text or anything of a payload.
 *
 * Several workers of one process may share the registry: each call with the same registry returns
 * a callback over the same metrics (the first call's options hold). The callback never throws, as
 * `onFinished` must not. A bound that is not a whole number of at least 1, or buckets that are
 * not increasing positive numbers, throw `VERQ_INVALID_ARGUMENT` here, before anything is
 * registered.
 *
 * @example
 * const registry = new Registry();
 * const worker = new JobWorker(queue, { owner: "w1", sender, ...jobWorkerMetrics(registry) });
 */
export function jobWorkerMetrics(registry: Registry, options: JobWorkerMetricsOptions = {}): JobWorkerMetrics {
  const existing = sets.get(registry);
  if (existing !== undefined) return { onFinished: existing.onFinished };
  const maxQueues = checkBound(options.maxQueues, "maxQueues");
  const maxKinds = checkBound(options.maxKinds, "maxKinds");
  const buckets = checkBuckets(options.buckets ?? HANDLER_SECONDS_BUCKETS);
  const overflow = overflowCounter(registry).counter;
  const registers = [registry];
  const finished = new Counter({
    name: "verq_jobs_finished_total",
    help: "Jobs a worker of this process finished, by queue, kind and outcome (ok, retry, permanent, failed).",
    labelNames: ["queue", "kind", "outcome"],
    registers,
  });
  const failures = new Counter({
    name: "verq_job_failures_total",
    help: "Failed attempts a worker of this process recorded, by queue, kind and failure category.",
    labelNames: ["queue", "kind", "category"],
    registers,
  });
  const durations = new Histogram({
    name: "verq_job_handler_duration_seconds",
    help: "How long a job's handler ran, by queue and kind.",
    labelNames: ["queue", "kind"],
    buckets,
    registers,
  });
  /** The bounded `queue` and `kind` labels of one metric. */
  const bounded = (metric: string) => {
    const queue = new LabelBound(maxQueues, overflow, metric, "queue");
    const kind = new LabelBound(maxKinds, overflow, metric, "kind");
    return (r: JobWorkerResult) => ({ queue: queue.admit(r.queue), kind: kind.admit(r.kind ?? KINDLESS_LABEL_VALUE) });
  };
  const finishedLabels = bounded("verq_jobs_finished_total");
  const failureLabels = bounded("verq_job_failures_total");
  const durationLabels = bounded("verq_job_handler_duration_seconds");
  const onFinished = (result: JobWorkerResult): void => {
    // A result without a queue (from a caller's own code) would take a label slot for nothing.
    if (typeof result?.queue !== "string") return;
    try {
      finished.inc({ ...finishedLabels(result), outcome: result.outcome });
      if (result.failure !== null) failures.inc({ ...failureLabels(result), category: result.failure.category });
      if (Number.isFinite(result.handlerMs) && result.handlerMs >= 0) {
        durations.observe(durationLabels(result), result.handlerMs / 1_000);
      }
    } catch {
      // A result the metrics cannot count (a malformed one from a caller's own code) is not counted: onFinished must not throw.
    }
  };
  sets.set(registry, { onFinished });
  return { onFinished };
}

/** Histogram buckets: increasing positive finite numbers, at least one. */
function checkBuckets(buckets: unknown): number[] {
  const list: readonly unknown[] = Array.isArray(buckets) ? (buckets as readonly unknown[]) : [];
  const numbers = list.filter((b): b is number => typeof b === "number" && Number.isFinite(b) && b > 0);
  const ok =
    numbers.length > 0 && numbers.length === list.length && numbers.every((b, i) => i === 0 || b > (numbers[i - 1] ?? 0));
  if (!ok) throw new VerqError("VERQ_INVALID_ARGUMENT", "buckets must be increasing positive numbers of seconds");
  return numbers;
}
