import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/** An event as stored: its global position, its stream version, type, data and time. */
export interface StoredEvent<Data = unknown> {
  readonly position: number;
  readonly streamType: string;
  readonly streamId: string;
  readonly version: number;
  readonly type: string;
  readonly data: Data;
  readonly at: number;
}

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

/** Reads the whole log (or one stream type) in position order. */
export async function readAllEvents(db: Kysely<VerqDatabase>, streamType?: string): Promise<StoredEvent[]> {
  let query = db.selectFrom("events").selectAll().orderBy("position");
  if (streamType !== undefined) query = query.where("stream_type", "=", streamType);
  return (await query.execute()).map(toStoredEvent);
}

function toStoredEvent(row: {
  position: number;
  stream_type: string;
  stream_id: string;
  version: number;
  type: string;
  data: string;
  at_ms: number;
}): StoredEvent {
  return {
    position: Number(row.position),
    streamType: row.stream_type,
    streamId: row.stream_id,
    version: Number(row.version),
    type: row.type,
    data: JSON.parse(row.data) as unknown,
    at: Number(row.at_ms),
  };
}
