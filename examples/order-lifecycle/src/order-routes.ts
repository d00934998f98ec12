import { isVerqError } from "@verq/core";
import type { DeclaredStream } from "@verq/store";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { parseCommands, parseListQuery } from "./order-input.ts";
import { eventView, orderView } from "./order-view.ts";
import { ORDER_COMMANDS, type Order, type OrderRefusal } from "./order.machine.ts";
import { ServiceError } from "./service-error.ts";

/** The largest body `POST /orders/:id/commands` reads: 64 KiB. */
export const MAX_BODY_BYTES = 65_536;
/** How many orders `GET /orders` lists when no limit is given. */
export const DEFAULT_LIMIT = 100;

/** The status of each error code; any other `VERQ_*` code is bad input (400) unless listed here. */
const STATUS_OF_CODE: Readonly<Record<string, number>> = {
  ORDERS_NOT_FOUND: 404,
  VERQ_NOT_FOUND: 404,
  VERQ_VERSION_CONFLICT: 409,
  VERQ_BODY_TOO_LARGE: 413,
  VERQ_UNSUPPORTED_MEDIA_TYPE: 415,
  VERQ_STORE_BUSY: 503,
  VERQ_STORE_UNREACHABLE: 503,
  VERQ_STORE_CONNECTION_LOST: 503,
  VERQ_STORE_FULL: 507,
  VERQ_STORE_CORRUPT: 500,
  VERQ_UNEXPECTED: 500,
};

function sendError(reply: FastifyReply, code: string, message: string): FastifyReply {
  return reply.code(STATUS_OF_CODE[code] ?? 400).send({ error: { code, message } });
}

/** The code of what Fastify refused before a handler ran: too large, not JSON, or unreadable. */
function edgeCode(error: FastifyError): string {
  const status = error.statusCode ?? 500;
  if (status === 413) return "VERQ_BODY_TOO_LARGE";
  if (status === 415) return "VERQ_UNSUPPORTED_MEDIA_TYPE";
  return status >= 400 && status < 500 ? "VERQ_INVALID_BODY" : "VERQ_UNEXPECTED";
}

const EDGE_MESSAGES: Readonly<Record<string, string>> = {
  VERQ_BODY_TOO_LARGE: `a request body is at most ${MAX_BODY_BYTES} bytes`,
  VERQ_UNSUPPORTED_MEDIA_TYPE: "send commands as Content-Type: application/json",
  VERQ_INVALID_BODY: "the body could not be read as JSON",
  VERQ_UNEXPECTED: "the request failed; nothing was decided, try again",
};

/** Logs a failure by its route and code only: never a body, an id or a message that might carry one. */
function logFailure(request: FastifyRequest, code: string, error: unknown): void {
  const name = error instanceof Error ? error.name : typeof error;
  console.error(JSON.stringify({ event: "request-failed", method: request.method, route: request.routeOptions.url, code, name }));
}

/**
 * Mounts the orders API over one declared stream on `app`. `POST /orders/:id/commands` decides a command (or an array of
 * them, all or none): 200 `{accepted: true, order, events}` or, for a refusal of the machine,
 * 409 `{accepted: false, refusal, command, order}`. `GET /orders/:id` and its `/events` read one
 * order (404 `ORDERS_NOT_FOUND` before its first event), `GET /orders` lists orders by state and
 * `GET /orders/counts` counts them. Every other refusal is `{"error": {"code", "message"}}` and writes
 * nothing: 400 for bad input, 413, 415, 409 `VERQ_VERSION_CONFLICT` after the stream's own
 * retries, 503 when the store is busy or unreachable.
 */
export function registerOrderRoutes(app: FastifyInstance, orders: DeclaredStream<Order, OrderRefusal>): void {
  // JSON only: a text/plain body is refused with 415 like any other type.
  app.removeContentTypeParser("text/plain");

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (isVerqError(error, "VERQ_UNKNOWN_COMMAND")) {
      // The stream's message names the type sent; the answer names the types taken instead.
      return sendError(reply, error.code, `an order takes the commands ${ORDER_COMMANDS.join(", ")}`);
    }
    if (error instanceof ServiceError || isVerqError(error)) {
      if ((STATUS_OF_CODE[error.code] ?? 400) >= 500) logFailure(request, error.code, error);
      return sendError(reply, error.code, error.message);
    }
    const code = edgeCode(error);
    if (code === "VERQ_UNEXPECTED") logFailure(request, code, error);
    return sendError(reply, code, EDGE_MESSAGES[code] ?? code);
  });
  app.setNotFoundHandler((_request, reply) => sendError(reply, "VERQ_NOT_FOUND", "no such route"));

  app.post<{ Params: { id: string } }>("/orders/:id/commands", { bodyLimit: MAX_BODY_BYTES }, async (request, reply) => {
    const result = await orders.handle(request.params.id, parseCommands(request.body));
    if (!result.accepted) {
      const { refusal, command, stream } = result;
      return reply.code(409).send({ accepted: false, refusal, command, order: orderView(stream) });
    }
    return reply.send({ accepted: true, order: orderView(result.stream), events: result.events.map((event) => event.type) });
  });

  app.get("/orders/counts", async () => orders.countByState());

  app.get("/orders", async (request) => {
    const query = parseListQuery(request.query, Object.keys(orders.definition.machine.root.states));
    const limit = query.limit ?? DEFAULT_LIMIT;
    const found = await orders.list({ ...query, limit });
    // A full page may have more after it: `next` is the `after` of the next page.
    const last = found.at(-1);
    return { orders: found.map(orderView), next: last !== undefined && found.length === limit ? last.id : null };
  });

  app.get<{ Params: { id: string } }>("/orders/:id", async (request) => {
    const order = await orders.get(request.params.id);
    if (order === null) throw new ServiceError("ORDERS_NOT_FOUND", "no order has this id");
    return orderView(order);
  });

  app.get<{ Params: { id: string } }>("/orders/:id/events", async (request) => {
    const events = await orders.events(request.params.id);
    if (events.length === 0) throw new ServiceError("ORDERS_NOT_FOUND", "no order has this id");
    return { id: request.params.id, events: events.map(eventView) };
  });
}
