import { checkIdentifier, isVerqError, type Clock } from "@verq/core";
import { ReceiptBook, type VerqLogger, type VerqStore } from "@verq/store";
import type { FastifyPluginCallback } from "fastify";
import { msSince } from "../log-fields.ts";
import { edgeErrorHandler } from "./edge-errors.ts";
import { acceptJsonOnly, decodeUtf8 } from "./json-body.ts";

/** The transaction a receiver's effect runs in: the receipt's own, on the store's Kysely instance. */
export type ReceiverTransaction = Parameters<Parameters<ReceiptBook["once"]>[1]>[0];

/** One request as the effect sees it: its idempotency key and its parsed body (`undefined` when none was sent). */
export interface ReceiverRequest {
  readonly key: string;
  readonly body: unknown;
}

/**
 * The business effect of a receiver. It runs inside the receipt's transaction, at most once per
 * idempotency key, and validates its own body: throwing a `VerqError` with code
 * `VERQ_INVALID_BODY` answers 400 with that code and message; any other throw answers 500
 * `VERQ_UNEXPECTED`; either way the transaction rolls back and nothing is recorded (the key may
 * be sent again). It resolves to the JSON answer stored for the key and sent for it and every
 * repeat; `undefined` stands for `{"ok":true}`, the answer verq's HTTP sender counts as success.
 */
export type ReceiverEffect = (trx: ReceiverTransaction, request: ReceiverRequest) => Promise<unknown>;

/** Options of {@link receiverPlugin}. */
export interface ReceiverPluginOptions {
  /** Where receipts are kept; the effect's own tables should live in the same database. */
  readonly store: VerqStore;
  readonly effect: ReceiverEffect;
  /** Largest accepted request body in bytes: 64 KiB. */
  readonly bodyLimit?: number;
  /** The clock of the receipts' times: the system clock. */
  readonly clock?: Clock;
  /**
   * Where the receiver logs, never a body or an answer: each keyed request at info (key,
   * `replayed` false for the first, true for a repeat answered from its receipt, status,
   * durationMs), a body refused at info with its code. (A failed effect or store answers 500 and
   * is logged at error by the app's own Fastify logger.) None by default.
   */
  readonly logger?: VerqLogger;
}

const OK_ANSWER = JSON.stringify({ ok: true });

/**
 * The idempotent receiver as an encapsulated Fastify plugin (SPEC J8; docs/architecture.md,
 * "Edges"): `app.register(receiverPlugin, { prefix: "/deliveries", store, effect })` mounts
 * `POST {prefix}/`. A request with an `Idempotency-Key` header runs `effect` and records the key
 * with its answer in one transaction ({@link ReceiptBook}); a repeated key gets the first answer
 * byte for byte and no second effect (header `Idempotent-Replayed: true`). Bad requests change
 * nothing: 400 `VERQ_MISSING_IDEMPOTENCY_KEY`, `VERQ_INVALID_IDEMPOTENCY_KEY` (malformed, or
 * sent twice), `VERQ_INVALID_BODY` (not UTF-8 JSON, or refused by the effect); 413
 * `VERQ_BODY_TOO_LARGE`; 415 `VERQ_UNSUPPORTED_MEDIA_TYPE` (a body not sent as
 * `application/json`). Its body parser and error handler stay inside the plugin's scope.
 *
 * @example
 * await app.register(receiverPlugin, {
 *   prefix: "/deliveries",
 *   store,
 *   effect: async (trx, { body }) => {
 *     const order = parseOrder(body); // throws VerqError("VERQ_INVALID_BODY", …) when malformed
 *     await trx.withTables<Orders>().insertInto("orders").values(order).execute();
 *   },
 * });
 */
export const receiverPlugin: FastifyPluginCallback<ReceiverPluginOptions> = (app, options, done) => {
  const book = new ReceiptBook(options.store, options.clock === undefined ? {} : { clock: options.clock });
  const log = options.logger;
  // Fastify's own JSON parser (which refuses `__proto__` and `constructor.prototype` keys), fed
  // exact UTF-8 text: its string reader would put U+FFFD in place of invalid bytes and go on.
  const parseJson = app.getDefaultJsonParser("error", "error");
  acceptJsonOnly(
    app,
    (request, body, done) => {
      const text = decodeUtf8(body);
      if (text === null) done(Object.assign(new Error("the body is not UTF-8"), { statusCode: 400 }));
      else void parseJson(request, text, done);
    },
    { headers: ["idempotency-key"], code: "VERQ_INVALID_IDEMPOTENCY_KEY" },
  );
  app.setErrorHandler(edgeErrorHandler);

  app.post("/", { bodyLimit: options.bodyLimit ?? 65_536 }, async (request, reply) => {
    const key = request.headers["idempotency-key"];
    if (typeof key !== "string" || key.length === 0) {
      return reply
        .code(400)
        .send({ error: { code: "VERQ_MISSING_IDEMPOTENCY_KEY", message: "send the job id as the Idempotency-Key header" } });
    }
    try {
      checkIdentifier(key, "the Idempotency-Key header", "VERQ_INVALID_ARGUMENT");
    } catch (error) {
      const message = isVerqError(error) ? error.message : "the Idempotency-Key header is malformed";
      return reply.code(400).send({ error: { code: "VERQ_INVALID_IDEMPOTENCY_KEY", message } });
    }
    const started = performance.now();
    try {
      const result = await book.once(key, async (trx) => {
        const answer = await options.effect(trx, { key, body: request.body });
        return answer === undefined ? OK_ANSWER : JSON.stringify(answer);
      });
      log?.info({ key, replayed: !result.applied, status: 200, durationMs: msSince(started) }, "receipt answered");
      return reply
        .code(200)
        .header("content-type", "application/json")
        .header("idempotent-replayed", String(!result.applied))
        .send(result.response);
    } catch (error) {
      if (isVerqError(error, "VERQ_INVALID_BODY")) {
        log?.info({ key, status: 400, code: error.code, durationMs: msSince(started) }, "body refused; nothing recorded");
        return reply.code(400).send({ error: { code: "VERQ_INVALID_BODY", message: error.message } });
      }
      throw error;
    }
  });
  done();
};
