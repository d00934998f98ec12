import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/**
 * At most `limit` rows of projection `table`, ordered by `column` and after `after`, whose
 * `column` names no stream of `streamType` in the event log: rows a fold can never give. One
 * keyset page of an anti-join on the events' UNIQUE index.
 */
export async function selectRowsWithoutStream<Row>(
  db: Kysely<VerqDatabase>,
  table: string,
  column: string,
  streamType: string,
  after: string | null,
  limit: number,
): Promise<Row[]> {
  const t = sql.table(table);
  const key = sql.ref(`${table}.${column}`);
  const { rows } = await sql<Row>`select * from ${t}
    where ${after === null ? sql`1 = 1` : sql`${key} > ${after}`}
      and not exists (select 1 from events e where e.stream_type = ${streamType} and e.stream_id = ${key})
    order by ${key} limit ${limit}`.execute(db);
  return rows;
}
