import type { Job } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { executeBatch } from "../batchValues.ts";
import { columnsAndValues, jobToRow } from "./jobRow.ts";

/** A new job's row: the job, its canonical payload text and the position of its enqueued event. */
export interface NewJobRow {
  readonly job: Job;
  readonly payloadJson: string;
  readonly enqueuePosition: number;
}

/** Inserts the `jobs` rows of new jobs, one statement per run of rows the dialect's batch takes. */
export async function insertJobRows(trx: Kysely<VerqDatabase>, dialect: StoreDialect, rows: readonly NewJobRow[]): Promise<void> {
  if (rows.length === 0) return;
  const { names, types, values } = columnsAndValues(rows.map((r) => jobToRow(r.job, r.payloadJson, r.enqueuePosition)));
  await executeBatch(trx, dialect, types, values, (v) => `insert into jobs (${names.join(", ")}) ${v.rows}`);
}
