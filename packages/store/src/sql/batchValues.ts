import type { Kysely } from "kysely";
import type { BatchColumnType, BatchText, BatchValue } from "../dialect/statements.ts";
import type { StoreDialect } from "../dialect/store-dialect.ts";
import type { VerqDatabase } from "../schema.ts";
import { readRows } from "./readRows.ts";

export type { BatchValue };

/**
 * One statement of a batch, written around the rows the dialect gives it
 * (`dialect.statements.batch`: a multi-row VALUES list on SQLite, one array a column on
 * PostgreSQL), as many times as the dialect splits the rows, so that one function writes the
 * statement of both engines; the values are bound, never spliced in. Batches are the hot path
 * (claims, finishes and enqueues of many jobs): building one Kysely node per value would cost
 * more than the database's own work, so the text is assembled by hand.
 */
export type BatchStatement = (text: BatchText) => string;

/** Runs the statements of a batch (see {@link BatchStatement}) and returns every statement's rows and the rows changed. */
export async function executeBatch<R>(
  db: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  types: readonly BatchColumnType[],
  rows: readonly (readonly BatchValue[])[],
  statement: BatchStatement,
): Promise<{ rows: R[]; affected: number }> {
  const out: R[] = [];
  let affected = 0;
  for (const query of dialect.statements.batch(types, rows, statement)) {
    const result = await db.executeQuery<R>(query);
    out.push(...result.rows);
    affected += Number(result.numAffectedRows ?? 0);
  }
  return { rows: out, affected };
}

/** Runs the queries of a batch (see {@link BatchStatement}) and returns their rows as column values, through the hot path when it holds `trx` (see {@link readRows}). */
export async function readBatch(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  types: readonly BatchColumnType[],
  rows: readonly (readonly BatchValue[])[],
  statement: BatchStatement,
): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for (const query of dialect.statements.batch(types, rows, statement)) out.push(...(await readRows(trx, dialect, query)));
  return out;
}
