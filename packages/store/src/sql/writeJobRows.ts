import { JOB_STREAM, VersionConflict, type Job } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import { executeBatch, type BatchValue } from "./batchValues.ts";
import { jobToRow, mutableColumns } from "./job-row.ts";

/**
 * The column names and values of rows built by `jobToRow` / `mutableColumns` (job-row.ts, the
 * one place that maps a job to columns). Every row comes from the same builder, so every row
 * lists its columns in the same order.
 */
function columnsAndValues(rows: readonly Record<string, BatchValue>[]): { names: string[]; values: BatchValue[][] } {
  return { names: Object.keys(rows[0] ?? {}), values: rows.map((row) => Object.values(row)) };
}

/** A new job's row: the job, its canonical payload text and the position of its enqueued event. */
export interface NewJobRow {
  readonly job: Job;
  readonly payloadJson: string;
  readonly enqueuePosition: number;
}

/** Inserts the `jobs` rows of new jobs in one multi-row statement. */
export async function insertJobRows(trx: Kysely<VerqDatabase>, rows: readonly NewJobRow[]): Promise<void> {
  if (rows.length === 0) return;
  const { names, values } = columnsAndValues(rows.map((r) => jobToRow(r.job, r.payloadJson, r.enqueuePosition)));
  await executeBatch(trx, values, (v) => `insert into jobs (${names.join(", ")}) values ${v}`);
}

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
export async function updateJobRows(trx: Kysely<VerqDatabase>, changes: readonly JobRowChange[]): Promise<void> {
  if (changes.length === 0) return;
  const { names, values } = columnsAndValues(changes.map((c) => mutableColumns(c.after)));
  // VALUES columns are column1, column2, …: the mutable columns, then the id and the version.
  const picks = names.map((_, i) => `v.column${i + 1}`).join(", ");
  const rows = values.map((row, i) => [...row, changes[i]?.after.id ?? null, changes[i]?.beforeVersion ?? null]);
  const result = await executeBatch(
    trx,
    rows,
    (v) => `update jobs set (${names.join(", ")}) = (${picks})
      from (values ${v}) as v where jobs.id = v.column${names.length + 1} and jobs.version = v.column${names.length + 2}`,
  );
  if (result.affected !== changes.length) {
    const first = changes[0];
    throw new VersionConflict(JOB_STREAM, first?.after.id ?? "", first?.beforeVersion ?? 0);
  }
}
