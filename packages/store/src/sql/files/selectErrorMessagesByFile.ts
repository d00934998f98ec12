import type { Message } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { rowToMessage } from "./messageRow.ts";
import { messageDb } from "./messageTables.ts";

/** Messages in `error` under any of `files` (the latest one per name). */
export async function selectErrorMessagesByFile(
  db: Kysely<VerqDatabase>,
  files: readonly string[],
): Promise<Map<string, Message>> {
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
