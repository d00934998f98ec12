import { CompiledQuery, type Kysely } from "kysely";
import type { BatchColumnType } from "../dialect/statements.ts";
import type { StoreDialect } from "../dialect/store-dialect.ts";
import type { VerqDatabase } from "../schema.ts";
import { readRows } from "./readRows.ts";

/** A bound value of a batch row. */
export type BatchValue = string | number | null;

/** Rows per statement at most; fewer when the dialect's parameter limit says so. */
const ROWS_PER_STATEMENT = 500;

/**
 * The statements of a batch: `before + (values (…), (…)) + after` over `rows`, whose columns have
 * the SQL `types`, at most 500 rows per statement (fewer if the dialect binds fewer parameters).
 * The VALUES list comes from the dialect (`dialect.statements.batchValues`), so one text serves
 * both engines; the values are bound, never spliced in.
 *
 * Batches are the hot path (claims, finishes and enqueues of many jobs): building one Kysely
 * node per value would cost more than the database's own work, so the text is assembled here.
 */
function* batchStatements(
  dialect: StoreDialect,
  types: readonly BatchColumnType[],
  rows: readonly (readonly BatchValue[])[],
  statement: (values: string) => string,
): Generator<CompiledQuery> {
  const columns = types.length;
  const perStatement = Math.max(
    1,
    Math.min(ROWS_PER_STATEMENT, Math.floor(dialect.statements.maxParameters / Math.max(1, columns))),
  );
  for (let start = 0; start < rows.length; start += perStatement) {
    const end = Math.min(rows.length, start + perStatement);
    // A plain loop: `Array.prototype.flat` cost more than the statement's own binding here.
    const parameters: BatchValue[] = [];
    for (let i = start; i < end; i++) {
      const row = rows[i] ?? [];
      if (row.length !== columns) throw new Error(`a batch row has ${row.length} values; expected ${columns}`);
      for (let c = 0; c < columns; c++) parameters.push(row[c] ?? null);
    }
    yield CompiledQuery.raw(statement(dialect.statements.batchValues(end - start, types)), parameters);
  }
}

/** Runs the statements of a batch (see {@link batchStatements}) and returns every statement's rows and the rows changed. */
export async function executeBatch<R>(
  db: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  types: readonly BatchColumnType[],
  rows: readonly (readonly BatchValue[])[],
  statement: (values: string) => string,
): Promise<{ rows: R[]; affected: number }> {
  const out: R[] = [];
  let affected = 0;
  for (const query of batchStatements(dialect, types, rows, statement)) {
    const result = await db.executeQuery<R>(query);
    out.push(...result.rows);
    affected += Number(result.numAffectedRows ?? 0);
  }
  return { rows: out, affected };
}

/** Runs the queries of a batch (see {@link batchStatements}) and returns their rows as column values, through the hot path when it holds `trx` (see {@link readRows}). */
export async function readBatch(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  types: readonly BatchColumnType[],
  rows: readonly (readonly BatchValue[])[],
  statement: (values: string) => string,
): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for (const query of batchStatements(dialect, types, rows, statement)) out.push(...(await readRows(trx, dialect, query)));
  return out;
}
