import { VerqError } from "@verq/core";
import type { OrderRow } from "./service-tables.ts";

/**
 * What the charge job carries to the payment provider: the order and its amount, never more.
 * The job's id (`charge-<orderId>`) travels as the `Idempotency-Key` header.
 */
export interface ChargePayload {
  readonly orderId: string;
  readonly amountCents: number;
  readonly currency: string;
}

/** The id of an order's charge job: one job per order, so placing the order again enqueues nothing new. */
export function chargeJobId(orderId: string): string {
  return `charge-${orderId}`;
}

/** The payload of an order's charge job. */
export function chargePayload(order: OrderRow): ChargePayload {
  return { orderId: order.id, amountCents: order.amount_cents, currency: order.currency };
}

/**
 * Reads a charge request as the payment provider receives it. A malformed one throws
 * `VERQ_INVALID_BODY`, which the receiver answers with 400 and records nothing for.
 */
export function parseChargePayload(body: unknown): ChargePayload {
  const fields = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const { orderId, amountCents, currency } = fields;
  if (
    typeof orderId !== "string" ||
    orderId.length === 0 ||
    typeof amountCents !== "number" ||
    !Number.isSafeInteger(amountCents) ||
    amountCents < 1 ||
    typeof currency !== "string" ||
    !/^[A-Z]{3}$/.test(currency)
  ) {
    throw new VerqError("VERQ_INVALID_BODY", "a charge is a JSON object {orderId, amountCents, currency}");
  }
  return { orderId, amountCents, currency };
}
