import { MESSAGE_STREAM, VersionConflict, type Message, type MessageEvent } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { appendEvents } from "../events/appendEvents.ts";
import { messageToRow, mutableMessageColumns } from "./messageRow.ts";
import { messageDb } from "./messageTables.ts";

/**
 * Writes what the message machine decided, in the caller's transaction: the events after
 * `before`'s version, then the `messages` row (`after`, their fold): inserted for a new stream
 * (version 0), else updated only if it is still at `before`'s version. A concurrent writer
 * that got there first makes one of the two fail with `VERQ_VERSION_CONFLICT`, and the
 * caller's transaction must roll back.
 */
export async function commitMessageEvents(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  before: Message,
  after: Message,
  events: readonly MessageEvent[],
): Promise<void> {
  await appendEvents(trx, dialect, MESSAGE_STREAM, before.id, before.version, events);
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
