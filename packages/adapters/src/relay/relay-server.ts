import type { FastifyInstance } from "fastify";
import { createEdgeApp, type EdgeServerOptions } from "../http/edge-server.ts";
import { relayPlugin, type RelayPluginOptions } from "./relay-plugin.ts";

/**
 * Settings of {@link createRelayServer}: those of {@link relayPlugin} and of every verq server
 * ({@link EdgeServerOptions}: a pino `logger`, which the app also logs its requests through, and
 * the `requestTimeout`).
 */
export type RelayServerOptions = RelayPluginOptions & EdgeServerOptions;

/**
 * A Fastify app with nothing but {@link relayPlugin} at the root (`POST /transfer`), for a relay
 * that runs as its own process (`verq relay serve`). The caller listens and closes it. With a
 * `logger`, each request is one line (see `RequestLogController`) besides the relay's own (those of a
 * `relay` given ready-made go to its own logger); without, it logs nothing. Any other route is
 * 404 `VERQ_NOT_FOUND`; what Node's parser refuses gets verq's JSON error too (see `createEdgeApp`).
 */
export function createRelayServer(options: RelayServerOptions): FastifyInstance {
  const app = createEdgeApp(options);
  void app.register(relayPlugin, options);
  return app;
}
