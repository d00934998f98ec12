import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/** The stored first answer for `key`, or null. */
export async function selectReceipt(db: Kysely<VerqDatabase>, key: string): Promise<string | null> {
  const row = await db.selectFrom("receipts").select("response").where("key", "=", key).executeTakeFirst();
  return row?.response ?? null;
}
