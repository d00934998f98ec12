import type { FastifyPluginCallback } from "fastify";
import { verqTracing } from "@verq/store";
import { edgeErrorHandler } from "../http/edge-errors.ts";
import { acceptJsonOnly, decodeUtf8 } from "../http/json-body.ts";
import { RelayService, type RelayServiceOptions } from "./relay-service.ts";

/**
 * Options of {@link relayPlugin}: either the relay's own settings (`ledger`, `core`,
 * `maxAttempts`), or a {@link RelayService} built beforehand (`relay`) — the same instance
 * that runs the service's resolve and reprocess operations. Fastify's `prefix` applies as for
 * any plugin.
 */
export type RelayPluginOptions = (RelayServiceOptions | { readonly relay: RelayService }) & {
  /** Largest accepted request body in bytes: 64 KiB. A larger one gets 413 and is not recorded. */
  readonly bodyLimit?: number;
};

/**
 * The relay's channel edge as an encapsulated Fastify plugin (docs/architecture.md, "Edges"), registered in
 * the service's own app: `app.register(relayPlugin, { prefix: "/relay", ledger, core })` mounts
 * `POST {prefix}/transfer`. The channel sends JSON `{"guid": "...", ...}`; the answer is HTTP
 * 200 with the core's answer (byte for byte, also for every resend of a DONE GUID) or
 * `{"guid","code"}` with `E901`, `E902` or `E903`, and the headers `Verq-Ledger-State` and
 * `Idempotent-Replayed`. Refused before the ledger, with a stable code and nothing recorded:
 * 400 `VERQ_INVALID_JSON`, `VERQ_INVALID_BODY`, `VERQ_MISSING_GUID`, `VERQ_INVALID_GUID`;
 * 413 `VERQ_BODY_TOO_LARGE`; 415 `VERQ_UNSUPPORTED_MEDIA_TYPE` (a content type other than
 * `application/json`, none, or two). The same GUID with another payload: 422 (`E422`). A store
 * failure: 500 `VERQ_UNEXPECTED`. A request's W3C `traceparent` header is the parent of the
 * relay's spans (docs/tracing.md).
 *
 * Its raw-body parser (the exact bytes of an `application/json` body are stored and forwarded)
 * and its error handler stay inside the plugin's scope: the host's other routes keep their own
 * parsing and error handling.
 *
 * @example
 * const app = Fastify();
 * await app.register(relayPlugin, { prefix: "/relay", ledger: new GuidLedger(store), core: createHttpCoreClient({ url }) });
 */
export const relayPlugin: FastifyPluginCallback<RelayPluginOptions> = (app, options, done) => {
  const relay = "relay" in options ? options.relay : new RelayService(options);
  const tracing = verqTracing();
  acceptJsonOnly(app, (_request, body, done) => done(null, body));
  app.setErrorHandler(edgeErrorHandler);

  app.post("/transfer", { bodyLimit: options.bodyLimit ?? 65_536 }, async (request, reply) => {
    const raw = request.body;
    // No body, or not UTF-8: refused by the relay as invalid JSON, with nothing recorded.
    const text = (Buffer.isBuffer(raw) ? decodeUtf8(raw) : null) ?? "";
    // A channel's `traceparent` header is the parent of the relay's spans, unless an HTTP
    // instrumentation already made the request's span from it.
    const answer = await tracing.within(tracing.fromHeaders(request.headers), () => relay.transfer(text));
    void reply.code(answer.status).header("content-type", "application/json");
    if (answer.state !== null)
      void reply.header("verq-ledger-state", answer.state).header("idempotent-replayed", String(answer.replayed));
    return reply.send(answer.body);
  });
  done();
};
