import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { toStoredEvent, type StoredEvent } from "./storedEvent.ts";

/** Reads the whole log (or one stream type) in position order. */
export async function readAllEvents(db: Kysely<VerqDatabase>, streamType?: string): Promise<StoredEvent[]> {
  let query = db.selectFrom("events").selectAll().orderBy("position");
  if (streamType !== undefined) query = query.where("stream_type", "=", streamType);
  return (await query.execute()).map(toStoredEvent);
}
