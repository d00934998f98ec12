import { isVerqError } from "@verq/core";
import type { JobQueue, VerqStore } from "@verq/store";
import type { FastifyError, FastifyPluginCallback, FastifyReply } from "fastify";
import { checkOrderId, parseOrder } from "./order-input.ts";
import { readOrder } from "./order-view.ts";
import { placeOrder } from "./place-order.ts";
import { ServiceError } from "./service-error.ts";

/** Options of {@link ordersRoutes}. */
export interface OrdersRoutesOptions {
  readonly store: VerqStore;
  readonly queue: JobQueue;
}

const STATUS_OF_CODE: Record<string, number> = {
  ORDERS_INVALID_BODY: 400,
  ORDERS_INVALID_ID: 400,
  ORDERS_ID_CONFLICT: 409,
  ORDERS_NOT_FOUND: 404,
  VERQ_ENQUEUE_CONFLICT: 409,
  VERQ_STORE_BUSY: 503,
};

function sendError(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply.code(status).send({ error: { code, message } });
}

/**
 * The orders API: `POST {prefix}/` places an order (201 when created, 200 when the same order
 * was placed before) and `GET {prefix}/:id` shows it with its charge. Every refusal is
 * `{"error": {"code", "message"}}` with a stable code and changes nothing: 400
 * `ORDERS_INVALID_BODY` / `ORDERS_INVALID_ID`, 404 `ORDERS_NOT_FOUND`, 409 `ORDERS_ID_CONFLICT`
 * or verq's `VERQ_ENQUEUE_CONFLICT`, 413 `ORDERS_BODY_TOO_LARGE`, 415
 * `ORDERS_UNSUPPORTED_MEDIA_TYPE`, 503 `VERQ_STORE_BUSY`, 500 `ORDERS_UNEXPECTED`.
 */
export const ordersRoutes: FastifyPluginCallback<OrdersRoutesOptions> = (app, { store, queue }, done) => {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ServiceError || isVerqError(error)) {
      const status = STATUS_OF_CODE[error.code] ?? 400;
      return sendError(reply, status, error.code, error.message);
    }
    // What Fastify refused before a handler ran: malformed JSON, a wrong content type, a large body.
    const status = error.statusCode ?? 500;
    if (status === 413) return sendError(reply, 413, "ORDERS_BODY_TOO_LARGE", "an order body is at most 16 KiB");
    if (status === 415) return sendError(reply, 415, "ORDERS_UNSUPPORTED_MEDIA_TYPE", "send the order as application/json");
    if (status >= 400 && status < 500)
      return sendError(reply, 400, "ORDERS_INVALID_BODY", "send a JSON object: {id, customer, amountCents, currency}");
    request.log.error({ err: error }, "orders: unexpected error");
    return sendError(reply, 500, "ORDERS_UNEXPECTED", "the order service failed; nothing was placed, try again");
  });

  app.post("/", { bodyLimit: 16_384 }, async (request, reply) => {
    const order = parseOrder(request.body);
    const result = await placeOrder(store, queue, order);
    const view = await readOrder(store, queue, result.order.id);
    return reply.code(result.created ? 201 : 200).send({ created: result.created, order: view });
  });

  app.get<{ Params: { id: string } }>("/:id", async (request, reply) => {
    const id = checkOrderId(request.params.id);
    const view = await readOrder(store, queue, id);
    if (view === null) throw new ServiceError("ORDERS_NOT_FOUND", "no order has this id");
    return reply.send(view);
  });
  done();
};
