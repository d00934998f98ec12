/**
 * An event as read back from the log, never changed once written. `Data` is not checked on
 * read: narrow it by `streamType` and `type` (e.g. to a `JobEvent`'s data) before trusting it.
 */
export interface StoredEvent<Data = unknown> {
  /** Global order of the log, assigned on insert; within a stream it follows `version`. */
  readonly position: number;
  readonly streamType: string;
  readonly streamId: string;
  /** Place in its stream, from 1, without gaps. */
  readonly version: number;
  readonly type: string;
  /** The event's data, parsed from its JSON text. */
  readonly data: Data;
  /** The time the event was decided, in ms since the epoch. */
  readonly at: number;
  /** The version of the event's shape it was written with (1 for every event of verq's own streams). */
  readonly schemaVersion: number;
}

/** Maps an `events` row to a {@link StoredEvent}, parsing its JSON data. */
export function toStoredEvent(row: {
  position: number;
  stream_type: string;
  stream_id: string;
  version: number;
  type: string;
  data: string;
  at_ms: number;
  schema_version?: number;
}): StoredEvent {
  return {
    position: Number(row.position),
    streamType: row.stream_type,
    streamId: row.stream_id,
    version: Number(row.version),
    type: row.type,
    data: JSON.parse(row.data) as unknown,
    at: Number(row.at_ms),
    schemaVersion: Number(row.schema_version ?? 1),
  };
}
