import Fastify, { type FastifyInstance } from "fastify";
import { relayPlugin, type RelayPluginOptions } from "./relay-plugin.ts";

/** Settings of {@link createRelayServer}: those of {@link relayPlugin}. */
export type RelayServerOptions = RelayPluginOptions;

/**
 * A Fastify app with nothing but {@link relayPlugin} at the root (`POST /transfer`), for a relay
 * that runs as its own process (`verq relay serve`). The caller listens and closes it.
 */
export function createRelayServer(options: RelayServerOptions): FastifyInstance {
  const app = Fastify({ logger: false });
  void app.register(relayPlugin, options);
  return app;
}
