import { VerqError } from "@verq/core";
import { ReceiptBook, type VerqStore } from "@verq/store";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { z } from "zod";
import { createReceiverServer, type ReceiverEffect } from "@verq/adapters/http";

// The sample business effect of `verq receiver serve`: its own table, created here, never by a
// library migration. Same shape as the table earlier versions created, so old files keep working.
type InventoryTables = {
  inventory: { item: string; quantity: number };
};

/** The sample business request: add `quantity` to the inventory. */
const DeliveryBody = z.object({ quantity: z.number().int().positive().max(1_000_000_000) });

/** What `GET /inventory` answers: the item's stock, requests received and effects applied. */
export interface InventoryCounts {
  readonly inventory: number;
  readonly requests: number;
  readonly effects: number;
}

/** Creates the sample `inventory` table unless it exists. */
export async function ensureInventoryTable(store: VerqStore): Promise<void> {
  await store.db.schema
    .createTable("inventory")
    .ifNotExists()
    .addColumn("item", "text", (c) => c.primaryKey())
    .addColumn("quantity", "bigint", (c) => c.notNull())
    .execute();
}

/**
 * The sample effect: `{"quantity": n}` (a positive whole number) adds n to `item`'s stock inside
 * the receipt's transaction; any other body is refused with `VERQ_INVALID_BODY`.
 */
export function inventoryEffect(item: string): ReceiverEffect {
  return async (trx, { body }) => {
    const parsed = DeliveryBody.safeParse(body);
    if (!parsed.success) throw new VerqError("VERQ_INVALID_BODY", 'the body must be {"quantity": a positive whole number}');
    const { quantity } = parsed.data;
    await trx
      .withTables<InventoryTables>()
      .insertInto("inventory")
      .values({ item, quantity })
      .onConflict((oc) => oc.column("item").doUpdateSet((eb) => ({ quantity: eb("inventory.quantity", "+", quantity) })))
      .execute();
    return undefined;
  };
}

/** The stock of `item` (0 when never stocked) and the receiver's request and effect counts. */
export async function inventoryCounts(store: VerqStore, item: string): Promise<InventoryCounts> {
  const row = await store.db
    .withTables<InventoryTables>()
    .selectFrom("inventory")
    .select("quantity")
    .where("item", "=", item)
    .executeTakeFirst();
  const { requests, effects } = await new ReceiptBook(store).counts();
  return { inventory: row === undefined ? 0 : Number(row.quantity), requests, effects };
}

/** Settings of {@link createInventoryReceiver}. */
export interface InventoryReceiverOptions {
  readonly store: VerqStore;
  /** The inventory item deliveries add to: `default`. */
  readonly item?: string;
  /** Largest accepted request body in bytes: 64 KiB. */
  readonly bodyLimit?: number;
  /** The receiver's and the requests' log lines (see `createReceiverServer`); none by default. */
  readonly logger?: FastifyBaseLogger;
  /** The longest a client may take to send a request, in ms (see `EdgeServerOptions`): 30 s. */
  readonly requestTimeout?: number;
}

/**
 * The receiver `verq receiver serve` runs (docs/cli.md): the idempotent receiver plugin with the
 * sample inventory effect at `POST /`, and `GET /inventory` →
 * `{"inventory": n, "requests": n, "effects": n}`. Creates its table first.
 */
export async function createInventoryReceiver(options: InventoryReceiverOptions): Promise<FastifyInstance> {
  const item = options.item ?? "default";
  await ensureInventoryTable(options.store);
  const app = createReceiverServer({
    store: options.store,
    effect: inventoryEffect(item),
    ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.requestTimeout === undefined ? {} : { requestTimeout: options.requestTimeout }),
  });
  app.get("/inventory", () => inventoryCounts(options.store, item));
  return app;
}
