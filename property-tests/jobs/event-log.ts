import { JOB_STREAM } from "@verq/core";
import type { JobsReal } from "./jobs-real.ts";

/** The highest global position in the event log (0 when it is empty), read through the store's Kysely. */
export async function highestPosition(r: JobsReal): Promise<number> {
  const row = await r.store.db
    .selectFrom("events")
    .select((eb) => eb.fn.max("position").as("max"))
    .executeTakeFirst();
  return Number(row?.max ?? 0);
}

/** How many events the job streams of `ids` hold, by id (every id of `ids` is a key, 0 when none). */
export async function jobEventCounts(r: JobsReal, ids: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map(ids.map((id) => [id, 0]));
  if (ids.length === 0) return counts;
  const rows = await r.store.db
    .selectFrom("events")
    .select("stream_id")
    .where("stream_type", "=", JOB_STREAM)
    .where("stream_id", "in", ids)
    .execute();
  for (const row of rows) counts.set(row.stream_id, (counts.get(row.stream_id) ?? 0) + 1);
  return counts;
}

/** The ids the retention archive (`job_archive`) holds, sorted. */
export async function archivedIds(r: JobsReal): Promise<string[]> {
  const rows = await r.store.db.selectFrom("job_archive").select("id").orderBy("id").execute();
  return rows.map((row) => row.id);
}
