import { CompiledQuery, type Kysely } from "kysely";
import type { BatchColumnType, StoreDialect } from "../dialect/store-dialect.ts";
import type { VerqDatabase } from "../schema.ts";

/** A bound value of a batch row. */
export type BatchValue = string | number | null;

/** Rows per statement at most; fewer when the dialect's parameter limit says so. */
const ROWS_PER_STATEMENT = 500;

/**
 * Runs `before + (values (…), (…)) + after` over `rows`, whose columns have the SQL `types`, at
 * most 500 rows per statement (fewer if the dialect binds fewer parameters), and returns every
 * statement's rows. The VALUES list comes from the dialect ({@link StoreDialect.batchValues}), so
 * one text serves both engines; the values are bound, never spliced in.
 *
 * Batches are the hot path (claims, finishes and enqueues of many jobs): building one Kysely
 * node per value would cost more than the database's own work, so the text is assembled here.
 */
export async function executeBatch<R>(
  db: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  types: readonly BatchColumnType[],
  rows: readonly (readonly BatchValue[])[],
  statement: (values: string) => string,
): Promise<{ rows: R[]; affected: number }> {
  const out: R[] = [];
  let affected = 0;
  const columns = types.length;
  const perStatement = Math.max(1, Math.min(ROWS_PER_STATEMENT, Math.floor(dialect.maxParameters / Math.max(1, columns))));
  for (let start = 0; start < rows.length; start += perStatement) {
    const end = Math.min(rows.length, start + perStatement);
    // A plain loop: `Array.prototype.flat` cost more than the statement's own binding here.
    const parameters: BatchValue[] = [];
    for (let i = start; i < end; i++) {
      const row = rows[i] ?? [];
      if (row.length !== columns) throw new Error(`a batch row has ${row.length} values; expected ${columns}`);
      for (let c = 0; c < columns; c++) parameters.push(row[c] ?? null);
    }
    const text = statement(dialect.batchValues(end - start, types));
    const result = await db.executeQuery<R>(CompiledQuery.raw(text, parameters));
    out.push(...result.rows);
    affected += Number(result.numAffectedRows ?? 0);
  }
  return { rows: out, affected };
}
