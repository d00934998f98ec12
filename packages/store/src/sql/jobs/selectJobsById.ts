import type { Job } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import { executeBatch } from "../batchValues.ts";
import type { VerqDatabase } from "../../schema.ts";
import { rowToJob, type JobRow } from "./jobRow.ts";

/** The projection rows of `ids` (one statement per 500 ids), by id; unknown ids are absent. */
export async function selectJobsById(
  db: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  ids: readonly string[],
): Promise<Map<string, Job>> {
  const jobs = new Map<string, Job>();
  if (ids.length === 0) return jobs;
  const result = await executeBatch<JobRow>(
    db,
    dialect,
    ["text"],
    ids.map((id) => [id]),
    (v) => `select * from jobs where id in (values ${v})`,
  );
  for (const row of result.rows) jobs.set(row.id, rowToJob(row));
  return jobs;
}
