import type { Message } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { rowToMessage } from "./messageRow.ts";
import { messageDb } from "./messageTables.ts";

/** One message by stream id, or null. */
export async function selectMessage(db: Kysely<VerqDatabase>, id: string): Promise<Message | null> {
  const row = await messageDb(db).selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirst();
  return row === undefined ? null : rowToMessage(row);
}
