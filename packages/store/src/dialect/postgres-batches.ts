import { CompiledQuery } from "kysely";
import { batchRuns } from "./batch-rows.ts";
import type { BatchColumnType, BatchText, BatchValue } from "./statements.ts";

/**
 * Rows per statement at most. Nothing binds more parameters for more rows (one array a column),
 * so this bounds only the size of one statement's arrays: a batch of the most jobs one claim or
 * page may hold is one statement.
 */
const ROWS_PER_STATEMENT = 1_000;

const textCache = new Map<string, BatchText>();

/**
 * The parts of every statement of a batch of columns of `types`: one array parameter a column,
 * `$1::text[]`, `$2::bigint[]`, …, typed so that the statement's parameters are typed whatever
 * the values (an untyped one would be text).
 */
function postgresBatchText(types: readonly BatchColumnType[]): BatchText {
  const key = types.join(",");
  let text = textCache.get(key);
  if (text === undefined) {
    const arrayOf = (column: number) => `$${column}::${types[column - 1]}[]`;
    // The array of a key column as a scalar subquery (an InitPlan): the planner does not see its
    // length, and plans for the ten values it assumes of an array it cannot see, reaching the rows
    // through the key's index, as a prepared statement's generic plan does. Given the array itself
    // (the first runs of a prepared statement, and every unnamed run, are planned with their
    // values), it weighs the keys against a scan of the whole table with a hashed filter, and
    // chose the scan for 1,000 keys in 100,000 jobs, or for 100 in 5,000 jobs never analysed.
    const keysOf = (column: number) => `(select ${arrayOf(column)})::${types[column - 1]}[]`;
    const arrays = types.map((_, i) => arrayOf(i + 1)).join(", ");
    const names = types.map((_, i) => `column${i + 1}`).join(", ");
    text = {
      rows: `select * from unnest(${arrays})`,
      table: (alias) => `unnest(${arrays}) as ${alias}(${names})`,
      contains(expression) {
        if (types.length !== 1) throw new Error(`contains takes a batch of one column, not ${types.length}`);
        return `${expression} = any(${keysOf(1)})`;
      },
      matches: (expression, alias, column) =>
        `(${expression} = any(${keysOf(column)}) and ${expression} = ${alias}.column${column})`,
    };
    if (textCache.size > 100) textCache.clear();
    textCache.set(key, text);
  }
  return text;
}

/**
 * PostgreSQL's statements of a batch (see `Statements.batch`): one array of each column's values
 * a statement, the same text for every statement of the batch and every batch of those columns,
 * which `fixed` declares (to run it as a named prepared statement).
 */
export function* postgresBatch(
  types: readonly BatchColumnType[],
  rows: readonly (readonly BatchValue[])[],
  statement: (text: BatchText) => string,
  fixed: (text: string) => string,
): Generator<CompiledQuery> {
  if (rows.length === 0) return;
  const columns = types.length;
  const text = fixed(statement(postgresBatchText(types)));
  for (const { start, end } of batchRuns(rows, columns, ROWS_PER_STATEMENT)) {
    const arrays: BatchValue[][] = Array.from({ length: columns }, () => new Array<BatchValue>(end - start));
    for (let i = start; i < end; i++) {
      const row = rows[i] as readonly BatchValue[];
      for (let c = 0; c < columns; c++) (arrays[c] as BatchValue[])[i - start] = row[c] ?? null;
    }
    yield CompiledQuery.raw(text, arrays);
  }
}
