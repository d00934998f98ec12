import { MESSAGE_EVENT_TYPES, MESSAGE_STREAM, evolveMessage, newMessage, type Message, type MessageEvent } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { byStreamType, upcastEvents } from "../../declared/upcast-events.ts";
import { readAllEvents } from "../events/readAllEvents.ts";
import { messageToRow } from "./messageRow.ts";
import { messageDb } from "./messageTables.ts";

/**
 * Replaces `messages`, `processed` and `message_duplicates` with the fold of the `message`
 * event streams (each event at its current shape), in the caller's transaction. The live tables are written in the same
 * transaction as their events, so a rebuild must give exactly the same rows.
 */
export async function rebuildMessageProjections(trx: Kysely<VerqDatabase>): Promise<{ messages: number; events: number }> {
  const m = messageDb(trx);
  await m.deleteFrom("messages").execute();
  await m.deleteFrom("processed").execute();
  await m.deleteFrom("message_duplicates").execute();
  const events = upcastEvents(await readAllEvents(trx, MESSAGE_STREAM), byStreamType());
  const messages = new Map<string, Message>();
  for (const stored of events) {
    if (!(MESSAGE_EVENT_TYPES as readonly string[]).includes(stored.type))
      throw new Error(`unknown message event type ${stored.type}`);
    const event = { type: stored.type, data: stored.data } as MessageEvent;
    const before = messages.get(stored.streamId) ?? newMessage(stored.streamId);
    messages.set(stored.streamId, evolveMessage(before, event));
    if (event.type === "message.recorded") {
      const d = event.data;
      await m
        .insertInto("processed")
        .values({
          msg_id: d.key,
          order_no: d.group,
          seq: d.sequence,
          amount: d.amount,
          processed_at: d.at,
          file: d.file,
          message_id: stored.streamId,
          message: d.message,
        })
        .execute();
    } else if (event.type === "message.duplicated") {
      await m
        .insertInto("message_duplicates")
        .values({ message_id: stored.streamId, msg_id: event.data.key, file: event.data.file, at_ms: event.data.at })
        .execute();
    }
  }
  for (const message of messages.values()) await m.insertInto("messages").values(messageToRow(message)).execute();
  return { messages: messages.size, events: events.length };
}
