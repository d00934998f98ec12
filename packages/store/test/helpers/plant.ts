import type { VerqStore } from "@verq/store";
import { sql } from "kysely";

/**
 * Writes one event row straight into the log, as a buggy writer would: no machine, no version
 * check beyond the UNIQUE constraint, no projection. `position` is the database's unless given.
 */
export async function plantEvent(
  store: VerqStore,
  event: { streamType: string; streamId: string; version: number; type: string; data: object; position?: number },
): Promise<void> {
  const at = (event.data as { at?: number }).at ?? 0;
  const data = JSON.stringify(event.data);
  await (
    event.position === undefined
      ? sql`insert into events (stream_type, stream_id, version, type, data, at_ms)
        values (${event.streamType}, ${event.streamId}, ${event.version}, ${event.type}, ${data}, ${at})`
      : sql`insert into events (position, stream_type, stream_id, version, type, data, at_ms)
        values (${event.position}, ${event.streamType}, ${event.streamId}, ${event.version}, ${event.type}, ${data}, ${at})`
  ).execute(store.db);
}
