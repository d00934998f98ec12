import { MESSAGE_STREAM, VersionConflict, type Message, type MessageEvent } from "@verq/core";
import type { Kysely } from "kysely";
import type { StreamProjection } from "../command-path.ts";
import type { VerqDatabase } from "../schema.ts";
import { insertMessageDuplicate } from "../sql/files/insertMessageDuplicate.ts";
import { messageToRow, mutableMessageColumns, rowToMessage } from "../sql/files/messageRow.ts";
import { messageDb } from "../sql/files/messageTables.ts";

/**
 * How the store keeps file-queue messages on the one command path: loaded by stream id from
 * `messages`; projected as the `messages` row of each change (inserted for a stream created from
 * version 0, else updated only while still at the version decided on: `VERQ_VERSION_CONFLICT`
 * otherwise) and a `message_duplicates` row for each `message.duplicated`.
 *
 * The `processed` row of a `message.recorded` is not written here: it is the insert-or-nothing
 * whose outcome the settle command carries (SPEC F3: the primary key decides a duplicate, before
 * the machine does), in the same transaction; a rebuild derives it from the event.
 */
export const messageStream: StreamProjection<Message, MessageEvent> = {
  streamType: MESSAGE_STREAM,
  idOf: (message) => message.id,
  async load(trx, ids) {
    const found = new Map<string, Message>();
    if (ids.length === 0) return found;
    const rows = await messageDb(trx).selectFrom("messages").selectAll().where("id", "in", ids).execute();
    for (const row of rows) found.set(row.id, rowToMessage(row));
    return found;
  },
  async project(trx, changes) {
    for (const { before, after, events } of changes) {
      await writeMessageRow(trx, before, after);
      for (const event of events) {
        if (event.type !== "message.duplicated") continue;
        const { key, file, at } = event.data;
        await insertMessageDuplicate(trx, { message_id: after.id, msg_id: key, file, at_ms: at });
      }
    }
  },
};

async function writeMessageRow(trx: Kysely<VerqDatabase>, before: Message, after: Message): Promise<void> {
  if (before.version === 0) {
    await messageDb(trx).insertInto("messages").values(messageToRow(after)).execute();
    return;
  }
  const result = await messageDb(trx)
    .updateTable("messages")
    .set(mutableMessageColumns(after))
    .where("id", "=", before.id)
    .where("version", "=", before.version)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new VersionConflict(MESSAGE_STREAM, before.id, before.version);
}
