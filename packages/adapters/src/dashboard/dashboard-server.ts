import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { RequestLogController } from "../http/request-log-controller.ts";
import { dashboardPlugin, type DashboardPluginOptions } from "./dashboard-plugin.ts";

/**
 * Settings of {@link createDashboardServer}: those of {@link dashboardPlugin}, and a pino logger
 * (e.g. `createLogger()`) the app logs each request through (one line: method, path, status,
 * duration); without one it logs nothing.
 */
export type DashboardServerOptions = DashboardPluginOptions & {
  readonly logger?: FastifyBaseLogger;
};

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
  const routerOptions = { maxParamLength: MAX_PARAM_LENGTH };
  const { logger, ...plugin } = options;
  const app =
    logger === undefined
      ? Fastify({ logger: false, routerOptions })
      : Fastify({ loggerInstance: logger, logController: new RequestLogController(), routerOptions });
  void app.register(dashboardPlugin, plugin);
  return app;
}
