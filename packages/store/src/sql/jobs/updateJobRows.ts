import { JOB_STREAM, VersionConflict, type Job } from "@verq/core";
import type { Kysely } from "kysely";
import type { HotPath, StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { executeBatch } from "../batchValues.ts";
import { columnsAndValues, mutableColumns } from "./jobRow.ts";

/** The hot path's UPDATE of one row by key, compiled once per store (its columns never change). */
const compiledByKey = new WeakMap<HotPath, string>();

/** A job that moved on: its row is rewritten from `after` if it is still at `beforeVersion`. */
export interface JobRowChange {
  readonly after: Job;
  readonly beforeVersion: number;
}

/**
 * Rewrites the `jobs` rows of jobs that moved on (one statement, or on the hot path one prepared
 * statement run for each row), each only if its row is
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
  const rows = values.map((row, i) => [...row, changes[i]?.after.id ?? null, changes[i]?.beforeVersion ?? null]);
  const hot = dialect.hotPath;
  let affected: number;
  if (hot?.holds(trx) === true) {
    // One prepared UPDATE by key per row, run synchronously: on SQLite that is cheaper than one
    // statement joined to a VALUES list of all of them (bench/schema-cost). Kysely compiles it.
    let text = compiledByKey.get(hot);
    if (text === undefined) {
      const first = changes[0] as JobRowChange;
      const byKey = trx
        .updateTable("jobs")
        .set(mutableColumns(first.after))
        .where("id", "=", first.after.id)
        .where("version", "=", first.beforeVersion)
        .compile();
      if (byKey.parameters.length !== names.length + 2)
        throw new Error("the compiled jobs update binds an unexpected number of values");
      text = byKey.sql;
      compiledByKey.set(hot, text);
    }
    affected = hot.runEach(text, rows);
  } else {
    // VALUES columns are column1, column2, …: the mutable columns, then the id and the version.
    const picks = names.map((_, i) => `v.column${i + 1}`).join(", ");
    const result = await executeBatch(
      trx,
      dialect,
      [...types, "text", "integer"],
      rows,
      (v) => `update jobs set (${names.join(", ")}) = (${picks})
        from (values ${v}) as v where jobs.id = v.column${names.length + 1} and jobs.version = v.column${names.length + 2}`,
    );
    affected = result.affected;
  }
  if (affected !== changes.length) {
    const first = changes[0];
    throw new VersionConflict(JOB_STREAM, first?.after.id ?? "", first?.beforeVersion ?? 0);
  }
}
