import Fastify, { type FastifyInstance } from "fastify";
import type { RelayService } from "./relay-service.ts";

/** Settings of the relay's HTTP edge. */
export interface RelayServerOptions {
  readonly relay: RelayService;
  /** Largest accepted request body in bytes: 64 KiB. A larger one gets 413 and is not recorded. */
  readonly bodyLimit?: number;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The relay as an HTTP server (DESIGN "Relay"): `POST /transfer` from the channel, with JSON
 * `{"guid": "...", ...}`; the answer is HTTP 200 with the core's answer (byte for byte, also
 * for every resend of a DONE GUID) or `{"guid","code"}` with `E901`, `E902` or `E903`.
 * Headers: `Verq-Ledger-State` (the entry's state) and `Idempotent-Replayed` (a stored answer).
 *
 * Refused before the ledger, with a stable code and nothing recorded: 400 `VERQ_INVALID_JSON`
 * (not UTF-8 JSON), `VERQ_INVALID_BODY` (not an object), `VERQ_MISSING_GUID`,
 * `VERQ_INVALID_GUID`; 413 `VERQ_BODY_TOO_LARGE`. The same GUID with another payload: 422,
 * code `E422` (`VERQ_GUID_PAYLOAD_MISMATCH`). A store failure: 500 `VERQ_UNEXPECTED`.
 */
export function createRelayServer(options: RelayServerOptions): FastifyInstance {
  const app = Fastify({ bodyLimit: options.bodyLimit ?? 65_536, logger: false });
  // The exact bytes matter (they are stored and forwarded), so every body is read raw,
  // whatever its content type, and parsed by the relay itself.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

  app.setErrorHandler((error: { statusCode?: number }, _request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    const code = status === 413 ? "VERQ_BODY_TOO_LARGE" : status < 500 ? "VERQ_INVALID_BODY" : "VERQ_UNEXPECTED";
    void reply.code(status).header("content-type", "application/json").send(JSON.stringify({ error: { code } }));
  });

  app.post("/transfer", async (request, reply) => {
    const raw = request.body;
    let text: string;
    try {
      text = Buffer.isBuffer(raw) ? utf8.decode(raw) : "";
    } catch {
      text = ""; // not UTF-8: refused below as invalid JSON
    }
    const answer = await options.relay.transfer(text);
    void reply.code(answer.status).header("content-type", "application/json");
    if (answer.state !== null) void reply.header("verq-ledger-state", answer.state).header("idempotent-replayed", String(answer.replayed));
    return reply.send(answer.body);
  });
  return app;
}
