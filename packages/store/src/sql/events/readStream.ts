import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { toStoredEvent, type StoredEvent } from "./storedEvent.ts";

/** Reads one stream in version order. */
export async function readStream(db: Kysely<VerqDatabase>, streamType: string, streamId: string): Promise<StoredEvent[]> {
  const rows = await db
    .selectFrom("events")
    .selectAll()
    .where("stream_type", "=", streamType)
    .where("stream_id", "=", streamId)
    .orderBy("version")
    .execute();
  return rows.map(toStoredEvent);
}
