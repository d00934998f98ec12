import Fastify, { type FastifyInstance } from "fastify";
import { receiverPlugin, type ReceiverPluginOptions } from "./receiver-plugin.ts";

/** Settings of {@link createReceiverServer}: those of {@link receiverPlugin}. */
export type ReceiverServerOptions = ReceiverPluginOptions;

/**
 * A Fastify app with nothing but {@link receiverPlugin} at the root (`POST /`), for a receiver
 * that runs as its own process. The caller may add routes, listens and closes it.
 */
export function createReceiverServer(options: ReceiverServerOptions): FastifyInstance {
  const app = Fastify({ logger: false });
  void app.register(receiverPlugin, options);
  return app;
}
