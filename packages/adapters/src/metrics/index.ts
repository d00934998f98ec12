/**
 * `@verq/adapters/metrics`: verq's figures as Prometheus metrics in the service's own prom-client
 * registry (read from the store at each scrape), a worker's own counts of the jobs it finishes,
 * and a plugin (or a server of its own) that serves a registry. prom-client is a peer
 * dependency: the service installs it, so that verq's metrics land in the same registry class
 * as its own.
 *
 * The export list is kept by hand: everything else under `src/metrics` may change at any time.
 *
 * @packageDocumentation
 */
export { registerVerqMetrics, VERQ_METRIC_NAMES, type VerqMetricsOptions } from "./verq-metrics.ts";
export {
  HANDLER_SECONDS_BUCKETS,
  JOB_WORKER_METRIC_NAMES,
  jobWorkerMetrics,
  type JobWorkerMetrics,
  type JobWorkerMetricsOptions,
} from "./job-worker-metrics.ts";
export { DEFAULT_MAX_LABEL_VALUES, KINDLESS_LABEL_VALUE, OVERFLOW_LABEL_VALUE, OVERFLOW_METRIC_NAME } from "./label-bounds.ts";
export { metricsPlugin, type MetricsPluginOptions } from "./metrics-plugin.ts";
export { createMetricsServer, type MetricsServerOptions } from "./metrics-server.ts";
