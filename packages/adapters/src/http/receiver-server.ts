import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { receiverPlugin, type ReceiverPluginOptions } from "./receiver-plugin.ts";
import { RequestLogController } from "./request-log-controller.ts";

/**
 * Settings of {@link createReceiverServer}: those of {@link receiverPlugin}, whose `logger` is
 * here a pino logger (e.g. `createLogger()`), which the app also logs its requests through.
 */
export type ReceiverServerOptions = ReceiverPluginOptions & {
  readonly logger?: FastifyBaseLogger;
};

/**
 * A Fastify app with nothing but {@link receiverPlugin} at the root (`POST /`), for a receiver
 * that runs as its own process. The caller may add routes, listens and closes it. With a
 * `logger`, each request is one line (see `RequestLogController`) besides the receiver's own; without,
 * it logs nothing.
 */
export function createReceiverServer(options: ReceiverServerOptions): FastifyInstance {
  if (options.logger === undefined) {
    const app = Fastify({ logger: false });
    void app.register(receiverPlugin, options);
    return app;
  }
  const app = Fastify({ loggerInstance: options.logger, logController: new RequestLogController() });
  void app.register(receiverPlugin, options);
  return app;
}
