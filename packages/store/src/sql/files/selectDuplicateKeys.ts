import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { messageDb } from "./messageTables.ts";

/** The idempotency keys that were stopped as duplicates, each once, ascending (SPEC F4). */
export async function selectDuplicateKeys(db: Kysely<VerqDatabase>): Promise<string[]> {
  const rows = await messageDb(db).selectFrom("message_duplicates").select("msg_id").distinct().orderBy("msg_id").execute();
  return rows.map((r) => r.msg_id);
}
