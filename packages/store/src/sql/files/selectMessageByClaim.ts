import type { Message } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { rowToMessage } from "./messageRow.ts";
import { messageDb } from "./messageTables.ts";

/** The message whose current or last claim is `claimId`, or null. */
export async function selectMessageByClaim(db: Kysely<VerqDatabase>, claimId: string): Promise<Message | null> {
  const row = await messageDb(db).selectFrom("messages").selectAll().where("claim_id", "=", claimId).executeTakeFirst();
  return row === undefined ? null : rowToMessage(row);
}
