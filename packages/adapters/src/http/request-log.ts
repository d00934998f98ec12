import type { FastifyInstance } from "fastify";

/**
 * Makes `app` log one line per request at info once its answer is sent: `reqId`, method, path
 * (the URL without its query string, which could carry data), status and durationMs. For an app
 * built with a `loggerInstance` and `disableRequestLogging: true` (Fastify's own two lines per
 * request would show the query string); call it before registering the routes it should cover.
 *
 * @example
 * const app = Fastify({ loggerInstance: createLogger({ name: "orders" }), disableRequestLogging: true });
 * logRequests(app);
 * await app.register(receiverPlugin, { prefix: "/payments", store, effect });
 */
export function logRequests(app: FastifyInstance): void {
  app.addHook("onResponse", (request, reply, done) => {
    const query = request.url.indexOf("?");
    request.log.info(
      {
        method: request.method,
        path: query === -1 ? request.url : request.url.slice(0, query),
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
      },
      "request",
    );
    done();
  });
}
