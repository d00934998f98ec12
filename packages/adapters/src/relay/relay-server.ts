import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { RequestLogController } from "../http/request-log-controller.ts";
import { relayPlugin, type RelayPluginOptions } from "./relay-plugin.ts";

/**
 * Settings of {@link createRelayServer}: those of {@link relayPlugin}, whose `logger` is here a
 * pino logger (e.g. `createLogger()`), which the app also logs its requests through.
 */
export type RelayServerOptions = RelayPluginOptions & {
  readonly logger?: FastifyBaseLogger;
};

/**
 * A Fastify app with nothing but {@link relayPlugin} at the root (`POST /transfer`), for a relay
 * that runs as its own process (`verq relay serve`). The caller listens and closes it. With a
 * `logger`, each request is one line (see `RequestLogController`) besides the relay's own (those of a
 * `relay` given ready-made go to its own logger); without, it logs nothing.
 */
export function createRelayServer(options: RelayServerOptions): FastifyInstance {
  if (options.logger === undefined) {
    const app = Fastify({ logger: false });
    void app.register(relayPlugin, options);
    return app;
  }
  const app = Fastify({ loggerInstance: options.logger, logController: new RequestLogController() });
  void app.register(relayPlugin, options);
  return app;
}
