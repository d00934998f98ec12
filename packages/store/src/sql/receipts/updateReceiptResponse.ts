import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/** Sets the answer of a receipt inserted in the same transaction. */
export async function updateReceiptResponse(trx: Kysely<VerqDatabase>, key: string, response: string): Promise<void> {
  await trx.updateTable("receipts").set({ response }).where("key", "=", key).execute();
}
