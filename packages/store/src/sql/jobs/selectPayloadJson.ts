import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/** The canonical payload text of a job, as stored in its enqueued event. */
export async function selectPayloadJson(db: Kysely<VerqDatabase>, id: string): Promise<string | null> {
  const row = await db.selectFrom("jobs").select("payload").where("id", "=", id).executeTakeFirst();
  return row?.payload ?? null;
}
