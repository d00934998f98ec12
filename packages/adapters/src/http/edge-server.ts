import { STATUS_CODES, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { VerqErrorCode } from "@verq/core";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import { edgeErrorHandler, sendEdgeError } from "./edge-errors.ts";
import { RequestLogController } from "./request-log-controller.ts";

/** Settings every verq server shares (relay, receiver, metrics, dashboard). */
export interface EdgeServerOptions {
  /** A pino logger (e.g. `createLogger()`): one line per request (see `RequestLogController`). None by default. */
  readonly logger?: FastifyBaseLogger;
  /**
   * The longest a client may take to send a whole request, headers and body, in ms: 30 s. A
   * slower one (a stalled upload, a byte now and then) gets 408 `VERQ_REQUEST_TIMEOUT` and its
   * connection is closed, so slow clients cannot hold the server's sockets.
   */
  readonly requestTimeout?: number;
}

/** Extra settings of one server: its router's, and whether its plugin answers unknown routes itself. */
export interface EdgeAppOptions {
  readonly routerOptions?: { readonly maxParamLength?: number };
  /** False when the plugin sets its own not-found handler at the root (the dashboard's HTML page). */
  readonly notFound?: boolean;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * Node's answer to what its HTTP parser refuses before Fastify sees a request: the status, the
 * code and the words. The connection is closed afterwards, as Node does, since the parser cannot
 * tell where the next request would start.
 */
function clientErrorAnswer(code: string | undefined): [number, VerqErrorCode, string] {
  switch (code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [408, "VERQ_REQUEST_TIMEOUT", "the request was not received in time"];
    case "HPE_HEADER_OVERFLOW":
      return [431, "VERQ_HEADERS_TOO_LARGE", "the request's headers are larger than this server accepts"];
    default:
      return [400, "VERQ_MALFORMED_REQUEST", "the request is not well-formed HTTP/1.1"];
  }
}

/**
 * Fastify's `clientErrorHandler` for verq's servers: a malformed request, headers too large or a
 * request too slow get verq's JSON error (400 `VERQ_MALFORMED_REQUEST`, 431
 * `VERQ_HEADERS_TOO_LARGE`, 408 `VERQ_REQUEST_TIMEOUT`) instead of Fastify's own format, then the
 * socket is closed. Nothing is written on a socket already reset or whose answer has begun.
 */
export function edgeClientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  // Node's own default handler checks the same: an answer under way must not get a second status line.
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (socket.writable && inFlight?.headersSent !== true) {
    const [status, code, message] = clientErrorAnswer(error.code);
    const body = JSON.stringify({ error: { code, message } });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** Fastify's `frameworkErrors`: a URL it cannot decode, or a path parameter over the router's limit. */
function edgeFrameworkError(error: FastifyError, _request: unknown, reply: FastifyReply): void {
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH")
    void sendEdgeError(reply, 414, "VERQ_URL_TOO_LONG", "the URL is longer than this server reads");
  else void sendEdgeError(reply, 400, "VERQ_INVALID_URL", "the URL cannot be decoded");
}

/**
 * A Fastify app with the settings of every verq server, for `createRelayServer` and its
 * siblings: requests timed out after `requestTimeout` (Node checks every second rather than its
 * default 30 s, so a slow client is cut near the limit), protocol errors and undecodable or
 * overlong URLs answered in verq's JSON error shape (400 `VERQ_INVALID_URL`, 414
 * `VERQ_URL_TOO_LONG`), root routes under {@link edgeErrorHandler}, and an
 * unknown method or path answered 404 `VERQ_NOT_FOUND`. With a `logger`, each request is one
 * line; without, it logs nothing.
 */
export function createEdgeApp(options: EdgeServerOptions, app: EdgeAppOptions = {}): FastifyInstance {
  const requestTimeout = options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const settings = {
    requestTimeout,
    http: { requestTimeout, connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(requestTimeout / 4))) },
    clientErrorHandler: edgeClientErrorHandler,
    frameworkErrors: edgeFrameworkError,
    ...(app.routerOptions === undefined ? {} : { routerOptions: app.routerOptions }),
  };
  const server =
    options.logger === undefined
      ? Fastify({ ...settings, logger: false })
      : Fastify({ ...settings, loggerInstance: options.logger, logController: new RequestLogController() });
  server.setErrorHandler(edgeErrorHandler);
  if (app.notFound !== false) {
    const notFound = (request: FastifyRequest, reply: FastifyReply) =>
      sendEdgeError(
        reply,
        404,
        "VERQ_NOT_FOUND",
        `no route answers ${request.method} ${(request.url.split("?")[0] ?? "").slice(0, 200)}`,
      );
    server.setNotFoundHandler(notFound);
    // Answered before any body is read: an unknown route is a 404, whatever its body would have been refused for.
    server.addHook("onRequest", async (request, reply) => (request.is404 ? notFound(request, reply) : undefined));
  }
  return server;
}
