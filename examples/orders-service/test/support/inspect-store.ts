import type { Job } from "@verq/core";
import { JobQueue, ReceiptBook, openStore, type ReceiverCounts } from "@verq/store";
import type { OrderRow, ServiceTables } from "../../src/service-tables.ts";

/** What the SQLite file holds about one order, read by the test in its own connection. */
export interface StoreContents {
  readonly order: OrderRow | null;
  readonly job: Job | null;
  /** Charge rows for the order's charge job. */
  readonly charges: number;
  /** Events of the order's charge job. */
  readonly jobEvents: number;
  readonly receiver: ReceiverCounts;
  /** Every order and every event in the file, whatever their ids. */
  readonly totals: { readonly orders: number; readonly events: number };
}

/** Opens the store file beside the service (or after it died), reads, and closes. */
export async function inspectStore(db: string, orderId: string): Promise<StoreContents> {
  const store = await openStore({ path: db });
  try {
    const tables = store.db.withTables<ServiceTables>();
    const jobId = `charge-${orderId}`;
    const order = (await tables.selectFrom("orders").selectAll().where("id", "=", orderId).executeTakeFirst()) ?? null;
    const charges = await tables.selectFrom("charges").select("key").where("key", "=", jobId).execute();
    const events = await tables.selectFrom("events").select("position").where("stream_id", "=", jobId).execute();
    return {
      order,
      job: await new JobQueue(store).get(jobId),
      charges: charges.length,
      jobEvents: events.length,
      receiver: await new ReceiptBook(store).counts(),
      totals: { orders: (await tables.selectFrom("orders").select("id").execute()).length, events: await store.countEvents() },
    };
  } finally {
    await store.close();
  }
}
