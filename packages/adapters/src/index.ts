// The public surface of @verq/adapters, kept by hand: what a service embeds. Everything else
// (the CLI's internals, the relay's steps, the file consumer's pieces) may change at any time.

// Jobs: delivering over HTTP.
export { createHttpSender, type HttpSenderOptions } from "./http/http-sender.ts";

// The idempotent receiver, as a plugin for the service's own Fastify app or as a server of its own.
export {
  receiverPlugin,
  type ReceiverEffect,
  type ReceiverPluginOptions,
  type ReceiverRequest,
  type ReceiverTransaction,
} from "./http/receiver-plugin.ts";
export { createReceiverServer, type ReceiverServerOptions } from "./http/receiver-server.ts";

// The GUID relay: its channel edge, the service behind it and its operations, the core client.
export { relayPlugin, type RelayPluginOptions } from "./relay/relay-plugin.ts";
export { createRelayServer, type RelayServerOptions } from "./relay/relay-server.ts";
export { RelayService, type GuidReport, type RelayServiceOptions } from "./relay/relay-service.ts";
export type { RelayBoundary } from "./relay/relay-context.ts";
export type { RelayReply } from "./relay/relay-reply.ts";
export type { ResolveReport } from "./relay/resolve-unknown.ts";
export type { ReprocessItem, ReprocessReport } from "./relay/reprocess-failed.ts";
export type { CoreClient } from "./relay/core-client.ts";
export { createHttpCoreClient, type HttpCoreClientOptions } from "./relay/http-core-client.ts";

// The file queue: its folders, the consumer, and the operators' tools.
export { QUEUE_FOLDERS, initQueue, openQueue, queueDirs, type QueueDirs } from "./files/queue-dirs.ts";
export {
  FileConsumer,
  type ConsumedMessage,
  type ConsumeTotals,
  type FileConsumerOptions,
  type FileMessageHandler,
  type FileOutcome,
  type HandlerTransaction,
} from "./files/file-consumer.ts";
export {
  DEFAULT_PROFILE,
  FIELD_TYPES,
  loadProfile,
  parseProfile,
  type FieldType,
  type FileQueueProfile,
} from "./files/profile.ts";
export { formatLag, measureLag, type QueueLag } from "./files/queue-lag.ts";
export { listErrors, type ErrorEntry } from "./files/error-list.ts";
export { replayFile } from "./files/replay-file.ts";
export { inferSchema, type InferredSchema, type SchemaField } from "./files/schema-inference.ts";

// The read-only dashboard, as a plugin for the service's own Fastify app or as a server of its own.
export { dashboardPlugin, type DashboardPluginOptions } from "./dashboard/dashboard-plugin.ts";
export { createDashboardServer, type DashboardServerOptions } from "./dashboard/dashboard-server.ts";
// Structured logs: the logger every `logger` option takes, and one line per HTTP request.
export { createLogger, REDACTED_FIELDS, type CreateLoggerOptions } from "./logging.ts";
export { LOG_LEVELS, type LogLevel } from "./log-fields.ts";
export { RequestLogController } from "./http/request-log-controller.ts";
export type { EdgeServerOptions } from "./http/edge-server.ts";
export type { LogFn, VerqLogger } from "@verq/store";

// Crash tests of a service's own processes.
export { failpoint, parseFailpoints, type FailpointAction } from "./failpoints.ts";

// Metrics for Prometheus: verq's figures in a prom-client registry, and a plugin that serves it.
export { registerVerqMetrics, VERQ_METRIC_NAMES, type VerqMetricsOptions } from "./metrics/verq-metrics.ts";
export { metricsPlugin, type MetricsPluginOptions } from "./metrics/metrics-plugin.ts";
export { createMetricsServer, type MetricsServerOptions } from "./metrics/metrics-server.ts";
