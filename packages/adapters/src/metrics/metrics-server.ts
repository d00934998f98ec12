import type { FastifyInstance } from "fastify";
import { createEdgeApp, type EdgeServerOptions } from "../http/edge-server.ts";
import { metricsPlugin, type MetricsPluginOptions } from "./metrics-plugin.ts";

/** Settings of {@link createMetricsServer}: those of {@link metricsPlugin} and of every verq server ({@link EdgeServerOptions}). */
export type MetricsServerOptions = MetricsPluginOptions & EdgeServerOptions;

/**
 * A Fastify app with nothing but {@link metricsPlugin} at the root (`GET /metrics`), for metrics
 * served by a process of their own (`verq metrics`). The caller listens and closes it. Any other
 * route is 404 `VERQ_NOT_FOUND`; what Node's parser refuses gets verq's JSON error too (see
 * `createEdgeApp`).
 */
export function createMetricsServer(options: MetricsServerOptions): FastifyInstance {
  const { registry, ...server } = options;
  const app = createEdgeApp(server);
  void app.register(metricsPlugin, { registry });
  return app;
}
