import type { JobState } from "@verq/core";
import type { JobQueue, VerqStore } from "@verq/store";
import { chargeJobId } from "./charge-job.ts";
import type { ServiceTables } from "./service-tables.ts";

/** An order with the state of its charge, as `GET /orders/:id` shows it. */
export interface OrderView {
  readonly id: string;
  readonly customer: string;
  readonly amountCents: number;
  readonly currency: string;
  readonly createdAt: number;
  readonly charge: {
    readonly jobId: string;
    /** The charge job's state; `null` only if the job was removed by an operator. */
    readonly state: JobState | null;
    /** The fencing token of the last claim: 0 before the first, 2 after one redelivery. */
    readonly token: number;
    readonly attempts: number;
    /** True once the payment provider recorded the charge. */
    readonly charged: boolean;
  };
}

/** Reads an order, its charge job and its charge; `null` when there is no such order. */
export async function readOrder(store: VerqStore, queue: JobQueue, id: string): Promise<OrderView | null> {
  const db = store.db.withTables<ServiceTables>();
  const order = await db.selectFrom("orders").selectAll().where("id", "=", id).executeTakeFirst();
  if (order === undefined) return null;
  const jobId = chargeJobId(id);
  const job = await queue.get(jobId);
  const charge = await db.selectFrom("charges").select("key").where("key", "=", jobId).executeTakeFirst();
  return {
    id: order.id,
    customer: order.customer,
    amountCents: order.amount_cents,
    currency: order.currency,
    createdAt: order.created_at,
    charge: {
      jobId,
      state: job?.state ?? null,
      token: job?.token ?? 0,
      attempts: job?.attempts ?? 0,
      charged: charge !== undefined,
    },
  };
}
