import type { ArchivedJob } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { executeBatch } from "../batchValues.ts";

/**
 * Inserts the `job_archive` rows of pruned jobs in one batch statement, in the prune's
 * transaction and before their events are deleted (the append-only trigger lets only an
 * archived job's events go). An id archived twice breaks the primary key: the prune rolls back.
 */
export async function insertArchiveRows(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  jobs: readonly ArchivedJob[],
): Promise<void> {
  if (jobs.length === 0) return;
  await executeBatch(
    trx,
    dialect,
    ["text", "text", "integer", "text", "bigint", "bigint", "bigint"],
    jobs.map((j) => [j.id, j.state, j.token, j.reason, j.enqueuedAt, j.finishedAt, j.prunedAt]),
    (v) => `insert into job_archive (id, state, token, reason, enqueued_at, finished_at, pruned_at) ${v.rows}`,
  );
}
