import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { toStoredEvent, type StoredEvent } from "./storedEvent.ts";

/**
 * Reads the whole log, or every stream of one type, in position order (each stream's events
 * in version order). It loads everything into memory at once: meant for audits, exports and
 * tests, not for a hot path.
 */
export async function readAllEvents(db: Kysely<VerqDatabase>, streamType?: string): Promise<StoredEvent[]> {
  let query = db.selectFrom("events").selectAll().orderBy("position");
  if (streamType !== undefined) query = query.where("stream_type", "=", streamType);
  return (await query.execute()).map(toStoredEvent);
}
