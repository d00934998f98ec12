import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { toStoredEvent, type StoredEvent } from "../events/storedEvent.ts";

/** Where a page of {@link selectEventPage} starts: after this event. */
export interface EventCursor {
  readonly streamType: string;
  readonly streamId: string;
  readonly version: number;
}

/**
 * Reads at most `limit` events in stream order (stream type, stream id, version) after `after`,
 * or from the first: one keyset page over the UNIQUE(stream_type, stream_id, version) index, so
 * a scan of the whole log holds one page at a time and each page costs the same however far in.
 */
export async function selectEventPage(
  db: Kysely<VerqDatabase>,
  after: EventCursor | null,
  limit: number,
): Promise<StoredEvent[]> {
  let query = db.selectFrom("events").selectAll();
  if (after !== null)
    query = query.where((eb) =>
      eb(eb.refTuple("stream_type", "stream_id", "version"), ">", eb.tuple(after.streamType, after.streamId, after.version)),
    );
  const rows = await query.orderBy("stream_type").orderBy("stream_id").orderBy("version").limit(limit).execute();
  return rows.map(toStoredEvent);
}
