import type { Job } from "@verq/core";
import type { Kysely } from "kysely";
import type { HotPath, StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { executeBatch } from "../batchValues.ts";
import { columnsAndValues, jobToRow } from "./jobRow.ts";

/** A new job's row: the job, its canonical payload text and the position of its enqueued event. */
export interface NewJobRow {
  readonly job: Job;
  readonly payloadJson: string;
  readonly enqueuePosition: number;
}

/** The hot path's INSERT of one row, compiled once per store (its columns never change). */
const compiledInsert = new WeakMap<HotPath, string>();

/**
 * Inserts the `jobs` rows of new jobs: one multi-row statement, or on the hot path one prepared
 * statement run for each row (as cheap on SQLite, without binding one long parameter list).
 */
export async function insertJobRows(trx: Kysely<VerqDatabase>, dialect: StoreDialect, rows: readonly NewJobRow[]): Promise<void> {
  const jobRows = rows.map((r) => jobToRow(r.job, r.payloadJson, r.enqueuePosition));
  const [first] = jobRows;
  if (first === undefined) return;
  const { names, types, values } = columnsAndValues(jobRows);
  const hot = dialect.hotPath;
  if (hot?.holds(trx) === true) {
    let text = compiledInsert.get(hot);
    if (text === undefined) {
      const one = trx.insertInto("jobs").values(first).compile();
      if (one.parameters.length !== names.length)
        throw new Error("the compiled jobs insert binds an unexpected number of values");
      text = one.sql;
      compiledInsert.set(hot, text);
    }
    hot.runEach(text, values);
    return;
  }
  await executeBatch(trx, dialect, types, values, (v) => `insert into jobs (${names.join(", ")}) values ${v}`);
}
