import type { VerqStore } from "@verq/store";

/** One order as the `orders` table holds it. Amounts are whole cents; times are ms since the epoch. */
export type OrderRow = {
  id: string;
  customer: string;
  amount_cents: number;
  currency: string;
  created_at: number;
};

/** One charge the payment provider made: at most one per idempotency key (the charge job's id). */
export type ChargeRow = {
  key: string;
  order_id: string;
  amount_cents: number;
  currency: string;
  charged_at: number;
};

/**
 * The service's own tables. They live in the store's SQLite file beside verq's, so that one
 * transaction covers an order and its job; `trx.withTables<ServiceTables>()` types them.
 */
export type ServiceTables = {
  orders: OrderRow;
  charges: ChargeRow;
};

/**
 * Creates the service's tables if they are missing, in one transaction. Safe to run at every
 * start and from several processes at once.
 */
export async function createServiceTables(store: VerqStore): Promise<void> {
  await store.transaction(async (trx) => {
    await trx.schema
      .createTable("orders")
      .ifNotExists()
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("customer", "text", (column) => column.notNull())
      .addColumn("amount_cents", "integer", (column) => column.notNull())
      .addColumn("currency", "text", (column) => column.notNull())
      .addColumn("created_at", "integer", (column) => column.notNull())
      .execute();
    await trx.schema
      .createTable("charges")
      .ifNotExists()
      .addColumn("key", "text", (column) => column.primaryKey())
      .addColumn("order_id", "text", (column) => column.notNull())
      .addColumn("amount_cents", "integer", (column) => column.notNull())
      .addColumn("currency", "text", (column) => column.notNull())
      .addColumn("charged_at", "integer", (column) => column.notNull())
      .execute();
  });
}
