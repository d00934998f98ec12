import type { FastifyInstance } from "fastify";
import { createEdgeApp, type EdgeServerOptions } from "../http/edge-server.ts";
import { dashboardPlugin, type DashboardPluginOptions } from "./dashboard-plugin.ts";

/**
 * Settings of {@link createDashboardServer}: those of {@link dashboardPlugin} and of every verq
 * server ({@link EdgeServerOptions}: a pino `logger` the app logs each request through, one
 * line with method, path, status and duration, nothing without one; the `requestTimeout`).
 */
export type DashboardServerOptions = DashboardPluginOptions & EdgeServerOptions;

/**
 * The longest path parameter the router takes: a job id of 256 characters, each percent-encoded
 * as up to 12 bytes. Longer is not an id: 414 `VERQ_URL_TOO_LONG`.
 */
const MAX_PARAM_LENGTH = 256 * 12;

/**
 * A Fastify app with nothing but {@link dashboardPlugin} at the root, for a dashboard that runs
 * as its own process. The caller listens (on 127.0.0.1 unless it means otherwise) and closes it.
 * Unknown pages are the plugin's own 404 page; what Node's parser refuses, and a URL that cannot
 * be decoded, get verq's JSON error (see `createEdgeApp`).
 */
export function createDashboardServer(options: DashboardServerOptions): FastifyInstance {
  const { logger, requestTimeout, ...plugin } = options;
  const app = createEdgeApp(
    { ...(logger === undefined ? {} : { logger }), ...(requestTimeout === undefined ? {} : { requestTimeout }) },
    { routerOptions: { maxParamLength: MAX_PARAM_LENGTH }, notFound: false },
  );
  void app.register(dashboardPlugin, plugin);
  return app;
}
