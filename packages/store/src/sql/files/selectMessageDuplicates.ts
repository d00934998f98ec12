import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { messageDb } from "./messageTables.ts";

/**
 * One message stopped by the `processed` primary key (SPEC F3): its key was recorded by an
 * earlier message, so it went to `done/` with no row and no business work. One per message.
 */
export interface MessageDuplicate {
  /** The idempotency key (`msg_id`) that was already in `processed`. */
  readonly key: string;
  /** The duplicate's file name in `done/`. */
  readonly file: string;
  /** The duplicate's message stream (not the one that recorded the key). */
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
