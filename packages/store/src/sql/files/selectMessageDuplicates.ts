import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { messageDb } from "./messageTables.ts";

/** One message stopped by the `processed` primary key. */
export interface MessageDuplicate {
  readonly key: string;
  readonly file: string;
  readonly messageId: string;
  readonly at: number;
}

/** Every duplicate with its file, by key then time. */
export async function selectMessageDuplicates(db: Kysely<VerqDatabase>): Promise<MessageDuplicate[]> {
  const rows = await messageDb(db)
    .selectFrom("message_duplicates")
    .selectAll()
    .orderBy("msg_id")
    .orderBy("at_ms")
    .orderBy("message_id")
    .execute();
  return rows.map((r) => ({ key: r.msg_id, file: r.file, messageId: r.message_id, at: Number(r.at_ms) }));
}
