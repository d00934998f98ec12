import Fastify, { type FastifyInstance } from "fastify";
import { dashboardPlugin, type DashboardPluginOptions } from "./dashboard-plugin.ts";

/** Settings of {@link createDashboardServer}: those of {@link dashboardPlugin}. */
export type DashboardServerOptions = DashboardPluginOptions;

/**
 * A Fastify app with nothing but {@link dashboardPlugin} at the root, for a dashboard that runs
 * as its own process. The caller listens (on 127.0.0.1 unless it means otherwise) and closes it.
 */
export function createDashboardServer(options: DashboardServerOptions): FastifyInstance {
  const app = Fastify({ logger: false });
  void app.register(dashboardPlugin, options);
  return app;
}
