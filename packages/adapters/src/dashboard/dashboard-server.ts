import Fastify, { type FastifyInstance } from "fastify";
import { dashboardPlugin, type DashboardPluginOptions } from "./dashboard-plugin.ts";

/** Settings of {@link createDashboardServer}: those of {@link dashboardPlugin}. */
export type DashboardServerOptions = DashboardPluginOptions;

/**
 * The longest path parameter the router takes: a job id of 256 characters, each percent-encoded
 * as up to 12 bytes. Longer is not an id: a 404 page.
 */
const MAX_PARAM_LENGTH = 256 * 12;

/**
 * A Fastify app with nothing but {@link dashboardPlugin} at the root, for a dashboard that runs
 * as its own process. The caller listens (on 127.0.0.1 unless it means otherwise) and closes it.
 */
export function createDashboardServer(options: DashboardServerOptions): FastifyInstance {
  const app = Fastify({ logger: false, routerOptions: { maxParamLength: MAX_PARAM_LENGTH } });
  void app.register(dashboardPlugin, options);
  return app;
}
