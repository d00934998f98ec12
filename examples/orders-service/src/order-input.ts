import { ServiceError } from "./service-error.ts";

/** An order as a client places it: its own id (placing it again is safe), a customer, an amount. */
export interface NewOrder {
  readonly id: string;
  readonly customer: string;
  readonly amountCents: number;
  readonly currency: string;
}

/** Order ids and customer ids: 1–64 ASCII letters, digits, `.`, `_` or `-`, starting with a letter or digit. */
export const ORDER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** The largest amount one order may charge, in cents. */
export const MAX_AMOUNT_CENTS = 100_000_000;

const FIELDS = ["id", "customer", "amountCents", "currency"] as const;

function refuse(message: string): never {
  throw new ServiceError("ORDERS_INVALID_BODY", message);
}

/**
 * Checks an order id from a path or a body; throws `ORDERS_INVALID_ID` when it is malformed.
 */
export function checkOrderId(value: unknown): string {
  if (typeof value !== "string" || !ORDER_ID_PATTERN.test(value)) {
    throw new ServiceError(
      "ORDERS_INVALID_ID",
      "an order id is 1-64 ASCII letters, digits, . _ or -, starting with a letter or digit",
    );
  }
  return value;
}

/**
 * Reads the body of `POST /orders`: a JSON object with exactly `id`, `customer`, `amountCents`
 * (a whole number of cents from 1 to {@link MAX_AMOUNT_CENTS}) and `currency` (three capital
 * letters). Anything else throws `ORDERS_INVALID_BODY`, before anything is written.
 */
export function parseOrder(body: unknown): NewOrder {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    refuse("send a JSON object: {id, customer, amountCents, currency}");
  const fields = body as Record<string, unknown>;
  const extra = Object.keys(fields).filter((key) => !(FIELDS as readonly string[]).includes(key));
  if (extra.length > 0) refuse(`unknown fields: ${extra.length}; an order has only id, customer, amountCents and currency`);
  if (typeof fields.id !== "string" || !ORDER_ID_PATTERN.test(fields.id))
    refuse("id: 1-64 ASCII letters, digits, . _ or -, starting with a letter or digit");
  if (typeof fields.customer !== "string" || !ORDER_ID_PATTERN.test(fields.customer)) {
    refuse("customer: 1-64 ASCII letters, digits, . _ or -, starting with a letter or digit");
  }
  const amount = fields.amountCents;
  if (typeof amount !== "number" || !Number.isSafeInteger(amount) || amount < 1 || amount > MAX_AMOUNT_CENTS) {
    refuse(`amountCents: a whole number of cents from 1 to ${MAX_AMOUNT_CENTS}`);
  }
  if (typeof fields.currency !== "string" || !/^[A-Z]{3}$/.test(fields.currency))
    refuse("currency: three capital letters (ISO 4217), e.g. EUR");
  return { id: fields.id, customer: fields.customer, amountCents: amount, currency: fields.currency };
}
