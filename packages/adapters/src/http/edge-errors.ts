import type { VerqErrorCode } from "@verq/core";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";

/** What each refusal of an edge says besides its code: the same words for every request. */
const MESSAGES: Readonly<Partial<Record<VerqErrorCode, string>>> = {
  VERQ_BODY_TOO_LARGE: "the body is larger than this endpoint accepts",
  VERQ_UNSUPPORTED_MEDIA_TYPE: "send the body as Content-Type: application/json",
  VERQ_INVALID_BODY: "the body could not be read as JSON",
  VERQ_UNEXPECTED: "the request could not be handled",
};

/**
 * Sends verq's JSON error shape, `{"error":{"code","message"}}`, with `status`: the one answer
 * every refusal of an HTTP edge takes, so a client reads a stable `VERQ_*` code and never
 * Fastify's own error format.
 */
export function sendEdgeError(reply: FastifyReply, status: number, code: VerqErrorCode, message = MESSAGES[code]): FastifyReply {
  return reply
    .code(status)
    .header("content-type", "application/json; charset=utf-8")
    .send(JSON.stringify({ error: { code, message } }));
}

/**
 * The status and stable code of what Fastify throws: its 4xx refusals keep their status, with
 * 413 `VERQ_BODY_TOO_LARGE`, 415 `VERQ_UNSUPPORTED_MEDIA_TYPE` and any other `VERQ_INVALID_BODY`;
 * anything else is 500 `VERQ_UNEXPECTED`.
 */
export function edgeErrorOf(error: { readonly statusCode?: number }): { status: number; code: VerqErrorCode } {
  const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  const code =
    status === 413
      ? "VERQ_BODY_TOO_LARGE"
      : status === 415
        ? "VERQ_UNSUPPORTED_MEDIA_TYPE"
        : status < 500
          ? "VERQ_INVALID_BODY"
          : "VERQ_UNEXPECTED";
  return { status, code };
}

/** What an edge error code says (see {@link sendEdgeError}), for the dashboard's pages. */
export function edgeErrorMessage(code: VerqErrorCode): string {
  return MESSAGES[code] ?? code;
}

/**
 * The error handler of verq's HTTP edges (relay and receiver plugins), scoped to each plugin:
 * what Fastify refuses before a handler runs gets a stable code and no payload contents —
 * 413 `VERQ_BODY_TOO_LARGE`, 415 `VERQ_UNSUPPORTED_MEDIA_TYPE`, any other 4xx
 * `VERQ_INVALID_BODY`; anything else is 500 `VERQ_UNEXPECTED` (and logged at `error`).
 */
export function edgeErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const { status, code } = edgeErrorOf(error);
  if (status >= 500) request.log.error({ err: error }, "verq: unexpected error in an HTTP edge");
  void sendEdgeError(reply, status, code);
}
