/**
 * `@verq/adapters/relay`: the GUID relay. Its channel edge (a Fastify plugin, or a server of its
 * own), the service behind it and its operations (resolve, reprocess), and the client of the
 * core it relays to. Loads fastify and undici, and nothing of the file queue, the metrics or the
 * dashboard.
 *
 * The export list is kept by hand: everything else under `src/relay` may change at any time.
 *
 * @packageDocumentation
 */
export { relayPlugin, type RelayPluginOptions } from "./relay-plugin.ts";
export { createRelayServer, type RelayServerOptions } from "./relay-server.ts";
export { RelayService, type GuidReport, type RelayServiceOptions } from "./relay-service.ts";
export type { RelayBoundary, RelayContext } from "./relay-context.ts";
export type { RelayReply } from "./relay-reply.ts";
export { resolveOne, type ResolveOneOptions, type ResolveOneResult, type ResolveReport } from "./resolve-unknown.ts";
export { reprocessOne, type ReprocessItem, type ReprocessOneOptions, type ReprocessReport } from "./reprocess-failed.ts";
export type { BulkPacing } from "./bulk-pacing.ts";
export type { CoreClient } from "./core-client.ts";
export { createHttpCoreClient, type HttpCoreClientOptions } from "./http-core-client.ts";
