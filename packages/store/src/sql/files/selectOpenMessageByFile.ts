import type { Message } from "@verq/core";
import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { rowToMessage } from "./messageRow.ts";
import { messageDb } from "./messageTables.ts";

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
