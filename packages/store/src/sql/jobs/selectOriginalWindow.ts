import { JOB_STREAM } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/**
 * The deadline window a job was enqueued with (`deadline - at` of its `job.enqueued`, the
 * stream's version 1), which a redrive without a deadline gives the job again; `null` for an
 * unknown job.
 */
export async function selectOriginalWindow(db: Kysely<VerqDatabase>, id: string): Promise<number | null> {
  const row = await db
    .selectFrom("events")
    .select("data")
    .where("stream_type", "=", JOB_STREAM)
    .where("stream_id", "=", id)
    .where("version", "=", 1)
    .executeTakeFirst();
  if (row === undefined) return null;
  const data = JSON.parse(row.data) as { readonly deadline: number; readonly at: number };
  return data.deadline - data.at;
}
