import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/**
 * Insert-or-nothing of a receipt for `key`. Returns true when this call created it: the
 * PRIMARY KEY, not a preceding lookup, decides who applies the effect.
 */
export async function insertReceipt(trx: Kysely<VerqDatabase>, key: string, response: string, atMs: number): Promise<boolean> {
  const result = await trx
    .insertInto("receipts")
    .values({ key, response, at_ms: atMs })
    .onConflict((oc) => oc.column("key").doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** The stored first answer for `key`, or null. */
export async function selectReceipt(db: Kysely<VerqDatabase>, key: string): Promise<string | null> {
  const row = await db.selectFrom("receipts").select("response").where("key", "=", key).executeTakeFirst();
  return row?.response ?? null;
}

/** Sets the answer of a receipt inserted in the same transaction. */
export async function updateReceiptResponse(trx: Kysely<VerqDatabase>, key: string, response: string): Promise<void> {
  await trx.updateTable("receipts").set({ response }).where("key", "=", key).execute();
}
