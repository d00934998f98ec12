import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { toStoredEvent, type StoredEvent } from "./storedEvent.ts";

/**
 * Reads at most `limit` events with `after < position <= upTo`, of the stream types `types`
 * (every type when undefined), in position order: one page of a subscription, over the
 * position key, so each page costs the same however long the log.
 */
export async function selectEventsAfter(
  db: Kysely<VerqDatabase>,
  after: number,
  upTo: number,
  types: readonly string[] | undefined,
  limit: number,
): Promise<StoredEvent[]> {
  let query = db.selectFrom("events").selectAll().where("position", ">", after).where("position", "<=", upTo);
  if (types !== undefined) query = query.where("stream_type", "in", types);
  const rows = await query.orderBy("position").limit(limit).execute();
  return rows.map(toStoredEvent);
}
