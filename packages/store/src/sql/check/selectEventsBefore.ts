import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/**
 * For each of `streamIds` (streams of `streamType`) that still has events at positions below
 * `position`: its id and how many. The check asks it for the GUIDs a purge audit at `position`
 * lists: the purge deleted their streams in the transaction that wrote the audit, so none may
 * be left from before it (a GUID claimed again after the purge starts a new stream, above it).
 */
export async function selectEventsBefore(
  db: Kysely<VerqDatabase>,
  streamType: string,
  streamIds: readonly string[],
  position: number,
): Promise<{ streamId: string; count: number }[]> {
  if (streamIds.length === 0) return [];
  const rows = await db
    .selectFrom("events")
    .select(["stream_id", (eb) => eb.fn.countAll().as("count")])
    .where("stream_type", "=", streamType)
    .where("stream_id", "in", [...streamIds])
    .where("position", "<", position)
    .groupBy("stream_id")
    .orderBy("stream_id")
    .execute();
  return rows.map((r) => ({ streamId: r.stream_id, count: Number(r.count) }));
}
