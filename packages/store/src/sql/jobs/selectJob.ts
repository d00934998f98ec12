import type { Job } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { rowToJob } from "./jobRow.ts";

/** One job's projection row, or `null` for an unknown id. */
export async function selectJob(db: Kysely<VerqDatabase>, id: string): Promise<Job | null> {
  const row = await db.selectFrom("jobs").selectAll().where("id", "=", id).executeTakeFirst();
  return row === undefined ? null : rowToJob(row);
}
