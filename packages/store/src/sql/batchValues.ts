import { CompiledQuery, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/** A bound value of a batch row. */
export type BatchValue = string | number | null;

/** Rows per statement: well under SQLite's 32,766 bound parameters for the widest batch (18 columns). */
const ROWS_PER_STATEMENT = 500;

const placeholderCache = new Map<string, string>();

/** `(?, ?), (?, ?)` for 2 rows of 2 columns; cached, so each batch size has one statement text. */
function placeholders(rows: number, columns: number): string {
  const key = `${rows}x${columns}`;
  let text = placeholderCache.get(key);
  if (text === undefined) {
    const row = `(${Array.from({ length: columns }, () => "?").join(", ")})`;
    text = Array.from({ length: rows }, () => row).join(", ");
    placeholderCache.set(key, text);
  }
  return text;
}

/**
 * Runs `before + (values (…), (…)) + after` over `rows`, at most 500 rows per statement, and
 * returns every statement's rows. The text depends only on the row count, so the store's
 * statement cache prepares each batch size once; the values are bound, never spliced in.
 *
 * Batches are the hot path (claims, finishes and enqueues of many jobs): building one Kysely
 * node per value would cost more than SQLite's own work, so the text is assembled here.
 */
export async function executeBatch<R>(
  db: Kysely<VerqDatabase>,
  rows: readonly (readonly BatchValue[])[],
  statement: (values: string) => string,
): Promise<{ rows: R[]; affected: number }> {
  const out: R[] = [];
  let affected = 0;
  const columns = rows[0]?.length ?? 0;
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const end = Math.min(rows.length, start + ROWS_PER_STATEMENT);
    // A plain loop: `Array.prototype.flat` cost more than the statement's own binding here.
    const parameters: BatchValue[] = [];
    for (let i = start; i < end; i++) {
      const row = rows[i] ?? [];
      if (row.length !== columns) throw new Error(`a batch row has ${row.length} values; expected ${columns}`);
      for (let c = 0; c < columns; c++) parameters.push(row[c] ?? null);
    }
    const text = statement(placeholders(end - start, columns));
    const result = await db.executeQuery<R>(CompiledQuery.raw(text, parameters));
    out.push(...result.rows);
    affected += Number(result.numAffectedRows ?? 0);
  }
  return { rows: out, affected };
}
