/**
 * `@verq/adapters/http`: delivering jobs over HTTP and the idempotent receiver, as a plugin for
 * the service's own Fastify app or as a server of its own. Loads fastify, @verq/core and
 * @verq/store (the sender uses Node's own `fetch`), and nothing of the relay, the file queue, the
 * metrics or the dashboard: mounting `receiverPlugin` needs neither prom-client nor dagre.
 *
 * The export list is kept by hand: everything else under `src/http` may change at any time.
 *
 * @packageDocumentation
 */
export { createHttpSender, type HttpSenderOptions } from "./http-sender.ts";
export {
  receiverPlugin,
  type ReceiverEffect,
  type ReceiverPluginOptions,
  type ReceiverRequest,
  type ReceiverTransaction,
} from "./receiver-plugin.ts";
export { createReceiverServer, type ReceiverServerOptions } from "./receiver-server.ts";
export { RequestLogController } from "./request-log-controller.ts";
export type { EdgeServerOptions } from "./edge-server.ts";
