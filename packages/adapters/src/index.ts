/**
 * `@verq/adapters`: every edge of verq at once, the union of its entry points. A service that
 * mounts one edge imports that edge's entry point instead and loads (and installs) only what
 * the edge needs:
 *
 * - `@verq/adapters/http`: the HTTP sender and the idempotent receiver;
 * - `@verq/adapters/relay`: the GUID relay and its core client;
 * - `@verq/adapters/files`: the file queue and its consumer;
 * - `@verq/adapters/metrics`: Prometheus metrics (needs the peer prom-client);
 * - `@verq/adapters/dashboard`: the read-only dashboard (needs the peer @dagrejs/dagre);
 * - `@verq/adapters/logging`: structured logs;
 * - `@verq/adapters/operators`: bulk redrive and its pacing;
 * - `@verq/adapters/failpoints`: crash tests of a service's own processes.
 *
 * This entry point loads all of them, so it needs both optional peers installed. The `verq`
 * command is in its own package, @verq/cli.
 *
 * @packageDocumentation
 */
export * from "./http/index.ts";
export * from "./relay/index.ts";
export * from "./files/index.ts";
export * from "./metrics/index.ts";
export * from "./dashboard/index.ts";
export * from "./logging/index.ts";
export * from "./operators/index.ts";
export * from "./failpoints/index.ts";
