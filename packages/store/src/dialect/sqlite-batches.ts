import { CompiledQuery } from "kysely";
import { batchRuns } from "./batch-rows.ts";
import type { BatchColumnType, BatchText, BatchValue } from "./statements.ts";

/** Rows per statement at most; fewer when SQLite's parameter limit says so. */
const ROWS_PER_STATEMENT = 500;
/** Bound values per statement at most: well under SQLite's 32,766. */
export const SQLITE_MAX_PARAMETERS = 32_000;

const listCache = new Map<string, string>();

/** `(?, ?), (?, ?)`: `rows` rows of `columns` placeholders, cached (one text per batch size, as the statement cache prepares it). */
function valuesList(rows: number, columns: number): string {
  const key = `${rows}x${columns}`;
  let text = listCache.get(key);
  if (text === undefined) {
    const row = `(${Array.from({ length: columns }, () => "?").join(", ")})`;
    text = Array.from({ length: rows }, () => row).join(", ");
    listCache.set(key, text);
  }
  return text;
}

/** The parts of a statement of `rows` rows of `columns` columns: a multi-row VALUES list. */
function sqliteBatchText(rows: number, columns: number): BatchText {
  const list = valuesList(rows, columns);
  return {
    rows: `values ${list}`,
    table: (alias) => `(values ${list}) as ${alias}`,
    contains(expression) {
      if (columns !== 1) throw new Error(`contains takes a batch of one column, not ${columns}`);
      return `${expression} in (values ${list})`;
    },
    // SQLite looks every row of the VALUES list up by the key already.
    matches: (expression, alias, column) => `${expression} = ${alias}.column${column}`,
  };
}

/**
 * SQLite's statements of a batch (see `Statements.batch`): multi-row VALUES lists, the values
 * bound row after row, one text per row count.
 */
export function* sqliteBatch(
  types: readonly BatchColumnType[],
  rows: readonly (readonly BatchValue[])[],
  statement: (text: BatchText) => string,
): Generator<CompiledQuery> {
  const columns = types.length;
  const perStatement = Math.min(ROWS_PER_STATEMENT, Math.floor(SQLITE_MAX_PARAMETERS / Math.max(1, columns)));
  for (const { start, end } of batchRuns(rows, columns, perStatement)) {
    // A plain loop: `Array.prototype.flat` cost more than the statement's own binding here.
    const parameters: BatchValue[] = [];
    for (let i = start; i < end; i++) {
      const row = rows[i] as readonly BatchValue[];
      for (let c = 0; c < columns; c++) parameters.push(row[c] ?? null);
    }
    yield CompiledQuery.raw(statement(sqliteBatchText(end - start, columns)), parameters);
  }
}
