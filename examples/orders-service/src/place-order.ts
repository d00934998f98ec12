import { failpoint } from "@verq/adapters/failpoints";
import type { JobQueue, VerqStore } from "@verq/store";
import { chargeJobId, chargePayload } from "./charge-job.ts";
import type { NewOrder } from "./order-input.ts";
import { ServiceError } from "./service-error.ts";
import type { OrderRow, ServiceTables } from "./service-tables.ts";

/** What {@link placeOrder} did: `created: false` when the same order was placed before. */
export interface PlaceOrderResult {
  readonly created: boolean;
  readonly order: OrderRow;
}

function sameOrder(row: OrderRow, order: NewOrder): boolean {
  return row.customer === order.customer && row.amount_cents === order.amountCents && row.currency === order.currency;
}

/**
 * Inserts the order and enqueues its charge job in one transaction of the store (SPEC P2): both
 * commit or neither does, so no order is ever left without its charge and no charge without
 * its order. Placing the same order again is a no-op; the same id with other contents throws
 * `ORDERS_ID_CONFLICT`. An enqueue verq refuses (e.g. `VERQ_ENQUEUE_CONFLICT`) rolls the order
 * back with it.
 *
 * Crash tests stop the process at two boundaries (`VERQ_FAILPOINTS`): `orders.beforeCommit`,
 * after the insert and the enqueue, inside the transaction; `orders.afterCommit`, right after
 * the commit, before the client has its answer and before any delivery.
 */
export async function placeOrder(
  store: VerqStore,
  queue: JobQueue,
  order: NewOrder,
  now = Date.now(),
): Promise<PlaceOrderResult> {
  const result = await store.transaction(async (trx) => {
    const orders = trx.withTables<ServiceTables>();
    const existing = await orders.selectFrom("orders").selectAll().where("id", "=", order.id).executeTakeFirst();
    if (existing !== undefined) {
      if (sameOrder(existing, order)) return { created: false, order: existing };
      throw new ServiceError("ORDERS_ID_CONFLICT", "an order with this id exists with other contents; choose a new id");
    }
    const row: OrderRow = {
      id: order.id,
      customer: order.customer,
      amount_cents: order.amountCents,
      currency: order.currency,
      created_at: now,
    };
    await orders.insertInto("orders").values(row).execute();
    await queue.enqueue({ id: chargeJobId(row.id), payload: chargePayload(row) }, { trx });
    failpoint("orders.beforeCommit");
    return { created: true, order: row };
  });
  if (result.created) failpoint("orders.afterCommit");
  return result;
}
