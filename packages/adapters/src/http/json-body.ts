import type { VerqErrorCode } from "@verq/core";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { sendEdgeError } from "./edge-errors.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The exact text of `bytes` when they are UTF-8, else `null` (never a lossy U+FFFD in their place). */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** Parses a body that Fastify read whole, or fails it with the error the edge's error handler answers. */
export type JsonBodyParser = (request: FastifyRequest, body: Buffer, done: (error: Error | null, body?: unknown) => void) => void;

/**
 * Makes an encapsulated plugin's scope a JSON endpoint: a body is read only when sent as
 * `application/json` (any case, any parameters: RFC 8259 defines no charset, the bytes must be
 * UTF-8 whatever it says), whole, as a buffer handed to `parse`. Any other content type, or a
 * body without one, gets Fastify's 415 (answered `VERQ_UNSUPPORTED_MEDIA_TYPE` by
 * `edgeErrorHandler`) before a handler runs; so does a request with two Content-Type headers,
 * which Node would otherwise read as its first one and a proxy perhaps as its last.
 * `once.headers` names the other headers that must come at most once (else 400 `once.code`).
 */
export function acceptJsonOnly(
  app: FastifyInstance,
  parse: JsonBodyParser,
  once: { readonly headers: readonly string[]; readonly code: VerqErrorCode } = { headers: [], code: "VERQ_INVALID_HEADER" },
): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) =>
    parse(request, body as Buffer, done),
  );
  app.addHook("onRequest", async (request: FastifyRequest, reply: FastifyReply) => {
    const distinct = request.raw.headersDistinct;
    if ((distinct["content-type"]?.length ?? 0) > 1)
      return sendEdgeError(reply, 415, "VERQ_UNSUPPORTED_MEDIA_TYPE", "send one Content-Type header: application/json");
    for (const name of once.headers) {
      if ((distinct[name]?.length ?? 0) > 1) return sendEdgeError(reply, 400, once.code, `send one ${name} header`);
    }
    return undefined;
  });
}
