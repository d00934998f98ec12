import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/**
 * The rows of projection `table` whose `column` is one of `keys` (at most a check's batch size),
 * as the driver returns them. A cold path: the check reads each projection by the ids of the
 * streams it has just folded.
 */
export async function selectRowsByKeys<Row>(
  db: Kysely<VerqDatabase>,
  table: string,
  column: string,
  keys: readonly string[],
): Promise<Row[]> {
  if (keys.length === 0) return [];
  const { rows } = await sql<Row>`select * from ${sql.table(table)} where ${sql.ref(column)} in (${sql.join(keys)})`.execute(db);
  return rows;
}
