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

/** Maps an `events` row to a {@link StoredEvent}, parsing its JSON data. */
export function toStoredEvent(row: {
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
