import type { Job } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import { readBatch } from "../batchValues.ts";
import type { VerqDatabase } from "../../schema.ts";
import { JOB_COLUMNS, valuesToJob } from "./jobRow.ts";

/** The projection rows of `ids` (one statement per run of ids the dialect's batch takes), by id; unknown ids are absent. */
export async function selectJobsById(
  db: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  ids: readonly string[],
): Promise<Map<string, Job>> {
  const jobs = new Map<string, Job>();
  if (ids.length === 0) return jobs;
  const rows = await readBatch(
    db,
    dialect,
    ["text"],
    ids.map((id) => [id]),
    (v) => `select ${JOB_COLUMNS} from jobs where ${v.contains("id")}`,
  );
  for (const values of rows) {
    const job = valuesToJob(values);
    jobs.set(job.id, job);
  }
  return jobs;
}
