import type { ArchivedJob, DeadReason } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { readBatch } from "../batchValues.ts";

const ARCHIVE_COLUMNS = "id, state, token, reason, enqueued_at, finished_at, pruned_at";

/** An archive row's values, selected with the columns above in that order, as the domain's {@link ArchivedJob}. */
export function valuesToArchivedJob(values: readonly unknown[]): ArchivedJob {
  return {
    id: values[0] as string,
    state: values[1] as ArchivedJob["state"],
    token: Number(values[2]),
    reason: values[3] as DeadReason | null,
    enqueuedAt: Number(values[4]),
    finishedAt: Number(values[5]),
    prunedAt: Number(values[6]),
  };
}

/**
 * The `job_archive` rows of `ids` (one statement per run of ids the dialect's batch takes), by
 * id; ids never pruned are absent. An enqueue batch reads them in one query to decide its jobs' creations.
 */
export async function selectArchivedJobs(
  db: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  ids: readonly string[],
): Promise<Map<string, ArchivedJob>> {
  const archived = new Map<string, ArchivedJob>();
  if (ids.length === 0) return archived;
  const rows = await readBatch(
    db,
    dialect,
    ["text"],
    ids.map((id) => [id]),
    (v) => `select ${ARCHIVE_COLUMNS} from job_archive where ${v.contains("id")}`,
  );
  for (const values of rows) {
    const job = valuesToArchivedJob(values);
    archived.set(job.id, job);
  }
  return archived;
}
