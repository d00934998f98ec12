import { JOB_STREAM, VersionConflict, type Job } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { executeBatch } from "../batchValues.ts";
import { columnsAndValues, mutableColumns } from "./jobRow.ts";

/** A job that moved on: its row is rewritten from `after` if it is still at `beforeVersion`. */
export interface JobRowChange {
  readonly after: Job;
  readonly beforeVersion: number;
}

/**
 * Rewrites the `jobs` rows of jobs that moved on, in one statement, each only if its row is
 * still at the version the decision was made on. Any row that moved meanwhile makes the whole
 * write fail with `VERQ_VERSION_CONFLICT` (the caller's transaction rolls back).
 */
export async function updateJobRows(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  changes: readonly JobRowChange[],
): Promise<void> {
  if (changes.length === 0) return;
  const { names, types, values } = columnsAndValues(changes.map((c) => mutableColumns(c.after)));
  // The batch's columns are column1, column2, …: the mutable columns, then the id and the version.
  const picks = names.map((_, i) => `v.column${i + 1}`).join(", ");
  const id = names.length + 1;
  const rows = values.map((row, i) => [...row, changes[i]?.after.id ?? null, changes[i]?.beforeVersion ?? null]);
  const result = await executeBatch(
    trx,
    dialect,
    [...types, "text", "integer"],
    rows,
    (v) => `update jobs set (${names.join(", ")}) = (${picks})
      from ${v.table("v")} where ${v.matches("jobs.id", "v", id)} and jobs.version = v.column${id + 1}`,
  );
  if (result.affected !== changes.length) {
    const first = changes[0];
    throw new VersionConflict(JOB_STREAM, first?.after.id ?? "", first?.beforeVersion ?? 0);
  }
}
