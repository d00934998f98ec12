import type { CompiledQuery, Kysely } from "kysely";
import type { StoreDialect } from "../dialect/store-dialect.ts";
import type { VerqDatabase } from "../schema.ts";

/**
 * The rows of one compiled query, each as its column values in the order the query selects
 * them: synchronously through the dialect's hot path when it holds `trx` (SQLite, inside the
 * store's own transaction), else through Kysely. Name the columns in the query: the caller
 * reads them by position.
 */
export async function readRows(trx: Kysely<VerqDatabase>, dialect: StoreDialect, query: CompiledQuery): Promise<unknown[][]> {
  const hot = dialect.statements.hotPath;
  if (hot?.holds(trx) === true) return hot.readRows(query.sql, query.parameters);
  const result = await trx.executeQuery<Record<string, unknown>>(query);
  return result.rows.map((row) => Object.values(row));
}
