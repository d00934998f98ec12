import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";

/**
 * The error handler of verq's HTTP edges (relay and receiver plugins), scoped to each plugin:
 * what Fastify refuses before a handler runs gets a stable code and no payload contents —
 * 413 `VERQ_BODY_TOO_LARGE`, 415 `VERQ_UNSUPPORTED_MEDIA_TYPE`, any other 4xx
 * `VERQ_INVALID_BODY`; anything else is 500 `VERQ_UNEXPECTED` (and logged at `error`).
 */
export function edgeErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  const code =
    status === 413
      ? "VERQ_BODY_TOO_LARGE"
      : status === 415
        ? "VERQ_UNSUPPORTED_MEDIA_TYPE"
        : status < 500
          ? "VERQ_INVALID_BODY"
          : "VERQ_UNEXPECTED";
  if (status >= 500) request.log.error({ err: error }, "verq: unexpected error in an HTTP edge");
  void reply
    .code(status)
    .header("content-type", "application/json")
    .send(JSON.stringify({ error: { code } }));
}
