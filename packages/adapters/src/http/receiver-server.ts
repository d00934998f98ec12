import { isVerqError } from "@verq/core";
import { ReceiptBook, type VerqStore } from "@verq/store";
import Fastify, { type FastifyInstance } from "fastify";
import { z } from "zod";

/** The sample business request: add `quantity` to the inventory. */
const DeliveryBody = z.object({ quantity: z.number().int().positive().max(1_000_000_000) });

const OK_ANSWER = JSON.stringify({ ok: true });

/** Settings of an idempotent receiver. */
export interface ReceiverServerOptions {
  readonly store: VerqStore;
  /** The inventory item deliveries add to: `default`. */
  readonly item?: string;
  /** Largest accepted request body in bytes: 64 KiB. */
  readonly bodyLimit?: number;
}

/**
 * An idempotent HTTP receiver (SPEC J8, DESIGN "Idempotent receiver"):
 * - `POST /` with `Idempotency-Key` and `{"quantity": n}` adds n to the inventory and records
 *   the key in one transaction, answering `{"ok":true}`; a repeated key gets the first answer
 *   byte for byte and no second effect (header `Idempotent-Replayed: true`);
 * - `GET /inventory` → `{"inventory": n, "requests": n, "effects": n}`.
 * Bad requests get 400 with a stable code and change nothing.
 */
export function createReceiverServer(options: ReceiverServerOptions): FastifyInstance {
  const book = new ReceiptBook(options.store);
  const item = options.item ?? "default";
  const app = Fastify({ bodyLimit: options.bodyLimit ?? 65_536, logger: false });

  app.setErrorHandler((error: { statusCode?: number; code?: string }, _request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    const code = status === 413 ? "VERQ_BODY_TOO_LARGE" : status === 415 ? "VERQ_UNSUPPORTED_MEDIA_TYPE" : status < 500 ? "VERQ_INVALID_BODY" : "VERQ_UNEXPECTED";
    void reply.code(status).send({ error: { code } });
  });

  app.post("/", async (request, reply) => {
    const key = request.headers["idempotency-key"];
    if (typeof key !== "string" || key.length === 0) {
      return reply.code(400).send({ error: { code: "VERQ_MISSING_IDEMPOTENCY_KEY", message: "send the job id as the Idempotency-Key header" } });
    }
    const parsed = DeliveryBody.safeParse(request.body);
    if (!parsed.success) {
      return reply.code(400).send({ error: { code: "VERQ_INVALID_BODY", message: "the body must be {\"quantity\": a positive whole number}" } });
    }
    try {
      const result = await book.once(key, async (trx) => {
        await ReceiptBook.addInventory(trx, item, parsed.data.quantity);
        return OK_ANSWER;
      });
      return reply
        .code(200)
        .header("content-type", "application/json")
        .header("idempotent-replayed", String(!result.applied))
        .send(result.response);
    } catch (error) {
      if (isVerqError(error, "VERQ_INVALID_ARGUMENT")) {
        return reply.code(400).send({ error: { code: "VERQ_INVALID_IDEMPOTENCY_KEY", message: error.message } });
      }
      throw error;
    }
  });

  app.get("/inventory", async () => book.counts(item));
  return app;
}
