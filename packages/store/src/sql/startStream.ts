import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import type { NewEvent } from "./appendEvents.ts";

/**
 * Insert-or-nothing of a stream's first event (version 1). Returns its position, or `null` when
 * the stream already exists: the UNIQUE(stream_type, stream_id, version) constraint, not a
 * preceding lookup, decides who created the stream. `ON CONFLICT DO NOTHING` is the same on
 * SQLite and PostgreSQL and leaves the transaction usable on both.
 */
export async function startStream(
  trx: Kysely<VerqDatabase>,
  streamType: string,
  streamId: string,
  event: NewEvent,
): Promise<number | null> {
  const row = await trx
    .insertInto("events")
    .values({
      stream_type: streamType,
      stream_id: streamId,
      version: 1,
      type: event.type,
      data: JSON.stringify(event.data),
      at_ms: event.data.at,
    })
    .onConflict((oc) => oc.columns(["stream_type", "stream_id", "version"]).doNothing())
    .returning("position")
    .executeTakeFirst();
  return row === undefined ? null : Number(row.position);
}
