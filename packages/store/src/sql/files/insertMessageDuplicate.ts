import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { messageDb, type MessageDuplicatesTable } from "./messageTables.ts";

/** Records a message that the `processed` primary key stopped, with its file, in the caller's transaction. */
export async function insertMessageDuplicate(trx: Kysely<VerqDatabase>, row: MessageDuplicatesTable): Promise<void> {
  await messageDb(trx).insertInto("message_duplicates").values(row).execute();
}
