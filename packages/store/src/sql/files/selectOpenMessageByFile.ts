import type { Message } from "@verq/core";
import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { rowToMessage } from "./messageRow.ts";
import { messageDb } from "./messageTables.ts";

/**
 * The stream a file found in the inbox under the name `file` continues: the latest message last
 * put under that name that is in `inbox` (replayed), or in `error` unless `errorCopyExists`
 * (then `error/` still holds that message's file, and the one in the inbox is another file, a
 * new stream). Null when there is none. Which stream a file is, not what may happen to it: the
 * message machine decides that.
 */
export async function selectOpenMessageByFile(
  db: Kysely<VerqDatabase>,
  file: string,
  errorCopyExists = false,
): Promise<Message | null> {
  const row = await messageDb(db)
    .selectFrom("messages")
    .selectAll()
    .where("file", "=", file)
    .where("state", "in", errorCopyExists ? ["inbox"] : ["inbox", "error"])
    .orderBy("updated_at", "desc")
    .orderBy("id", "desc")
    // A literal limit: a bound one makes SQLite re-prepare the statement on every execution.
    .limit(sql.lit(1))
    .executeTakeFirst();
  return row === undefined ? null : rowToMessage(row);
}
