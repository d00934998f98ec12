import type { ReceiverEffect } from "@verq/adapters/http";
import { parseChargePayload } from "./charge-job.ts";
import type { ServiceTables } from "./service-tables.ts";

/**
 * The payment provider's effect: records one charge per idempotency key, in the receipt's
 * transaction. The receiver runs it at most once per key and answers every repeat with the
 * stored answer, so a charge redelivered after a crash is never made twice (SPEC J8).
 */
export const chargeEffect: ReceiverEffect = async (trx, { key, body }) => {
  const charge = parseChargePayload(body);
  await trx
    .withTables<ServiceTables>()
    .insertInto("charges")
    .values({
      key,
      order_id: charge.orderId,
      amount_cents: charge.amountCents,
      currency: charge.currency,
      charged_at: Date.now(),
    })
    .execute();
  return { ok: true, charge: key };
};
