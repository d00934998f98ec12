import type { FastifyInstance } from "fastify";
import { createEdgeApp, type EdgeServerOptions } from "./edge-server.ts";
import { receiverPlugin, type ReceiverPluginOptions } from "./receiver-plugin.ts";

/**
 * Settings of {@link createReceiverServer}: those of {@link receiverPlugin} and of every verq
 * server ({@link EdgeServerOptions}), whose `logger` is here a pino logger (e.g.
 * `createLogger()`), which the app also logs its requests through.
 */
export type ReceiverServerOptions = ReceiverPluginOptions & EdgeServerOptions;

/**
 * A Fastify app with nothing but {@link receiverPlugin} at the root (`POST /`), for a receiver
 * that runs as its own process. The caller may add routes, listens and closes it. With a
 * `logger`, each request is one line (see `RequestLogController`) besides the receiver's own; without,
 * it logs nothing. Any other route is 404 `VERQ_NOT_FOUND`; what Node's parser refuses gets
 * verq's JSON error too (see `createEdgeApp`).
 */
export function createReceiverServer(options: ReceiverServerOptions): FastifyInstance {
  const app = createEdgeApp(options);
  void app.register(receiverPlugin, options);
  return app;
}
