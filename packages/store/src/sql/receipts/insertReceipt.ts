import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

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
