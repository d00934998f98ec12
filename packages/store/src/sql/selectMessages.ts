import type { Message } from "@verq/core";
import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import { rowToMessage } from "./messageRow.ts";
import { messageDb } from "./messageTables.ts";

/** The message whose current or last claim is `claimId`, or null. */
export async function selectMessageByClaim(db: Kysely<VerqDatabase>, claimId: string): Promise<Message | null> {
  const row = await messageDb(db).selectFrom("messages").selectAll().where("claim_id", "=", claimId).executeTakeFirst();
  return row === undefined ? null : rowToMessage(row);
}

/** One message by stream id, or null. */
export async function selectMessage(db: Kysely<VerqDatabase>, id: string): Promise<Message | null> {
  const row = await messageDb(db).selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirst();
  return row === undefined ? null : rowToMessage(row);
}

/**
 * The latest message last put under the name `file` that is in `inbox` (replayed) or `error`:
 * the stream a file found under that name in the inbox may continue. Null when there is none.
 */
export async function selectOpenMessageByFile(db: Kysely<VerqDatabase>, file: string): Promise<Message | null> {
  const row = await messageDb(db)
    .selectFrom("messages")
    .selectAll()
    .where("file", "=", file)
    .where("state", "in", ["inbox", "error"])
    .orderBy("updated_at", "desc")
    .orderBy("id", "desc")
    // A literal limit: a bound one makes SQLite re-prepare the statement on every execution.
    .limit(sql.lit(1))
    .executeTakeFirst();
  return row === undefined ? null : rowToMessage(row);
}

/** Messages in `error` under any of `files` (the latest one per name). */
export async function selectErrorMessagesByFile(db: Kysely<VerqDatabase>, files: readonly string[]): Promise<Map<string, Message>> {
  const found = new Map<string, Message>();
  for (let i = 0; i < files.length; i += 500) {
    const chunk = files.slice(i, i + 500);
    const rows = await messageDb(db)
      .selectFrom("messages")
      .selectAll()
      .where("state", "=", "error")
      .where("file", "in", chunk)
      .orderBy("updated_at")
      .orderBy("id")
      .execute();
    for (const row of rows) found.set(row.file, rowToMessage(row));
  }
  return found;
}
