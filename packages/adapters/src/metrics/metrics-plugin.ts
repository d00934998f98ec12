import type { FastifyPluginCallback } from "fastify";
import type { Registry } from "prom-client";
import { edgeErrorHandler } from "../http/edge-errors.ts";

/** Options of {@link metricsPlugin}. */
export interface MetricsPluginOptions {
  /** The registry to serve: verq's metrics ({@link registerVerqMetrics}) and any of the service's own. */
  readonly registry: Registry;
}

/**
 * Serves a prom-client registry as an encapsulated Fastify plugin:
 * `app.register(metricsPlugin, { registry })` mounts `GET /metrics` (under the plugin's
 * `prefix`, if any), answered with `registry.metrics()` and the registry's own content type
 * (the Prometheus text format unless the registry was set to OpenMetrics). A scrape that cannot
 * read its figures (the store is unreachable) answers 500 `VERQ_UNEXPECTED`; the error handler
 * stays inside the plugin's scope.
 *
 * @example
 * const registry = new Registry();
 * registerVerqMetrics(registry, { store });
 * await app.register(metricsPlugin, { registry });
 */
export const metricsPlugin: FastifyPluginCallback<MetricsPluginOptions> = (app, options, done) => {
  const { registry } = options;
  app.setErrorHandler(edgeErrorHandler);
  app.get("/metrics", async (_request, reply) => {
    const text = await registry.metrics();
    return reply.header("content-type", registry.contentType).send(text);
  });
  done();
};
