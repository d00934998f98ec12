import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/** Adds `quantity` to an item's stock, creating the item at that quantity. */
export async function addInventory(trx: Kysely<VerqDatabase>, item: string, quantity: number): Promise<void> {
  await trx
    .insertInto("inventory")
    .values({ item, quantity })
    .onConflict((oc) => oc.column("item").doUpdateSet({ quantity: sql`inventory.quantity + ${quantity}` }))
    .execute();
}

/** An item's stock; 0 when it was never stocked. */
export async function readInventory(db: Kysely<VerqDatabase>, item: string): Promise<number> {
  const row = await db.selectFrom("inventory").select("quantity").where("item", "=", item).executeTakeFirst();
  return row === undefined ? 0 : Number(row.quantity);
}
