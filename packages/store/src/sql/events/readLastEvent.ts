import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { toStoredEvent, type StoredEvent } from "./storedEvent.ts";

/** The newest event of one stream (its highest version), or `null` for a stream with none; reads one row by the stream's unique index. */
export async function readLastEvent(db: Kysely<VerqDatabase>, streamType: string, streamId: string): Promise<StoredEvent | null> {
  const row = await db
    .selectFrom("events")
    .selectAll()
    .where("stream_type", "=", streamType)
    .where("stream_id", "=", streamId)
    .orderBy("version", "desc")
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? null : toStoredEvent(row);
}
