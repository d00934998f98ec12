import type { Engine } from "@verq/testing";
import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../../src/schema.ts";

/**
 * `count` rows straight into `jobs` (no events: for plans and timings of reads only), in one
 * statement: a twentieth pending, a twentieth leased, a twentieth dead (exhausted), the rest
 * done; a third in queue `mail`, the rest in `default`; a quarter of kind `mail.send`, the rest
 * without one. Then the tables are analysed, as a store in service would be.
 */
export async function seedJobRows(db: Kysely<VerqDatabase>, engine: Engine, count: number, from = 1): Promise<void> {
  const numbers =
    engine === "postgres"
      ? sql`select g from generate_series(${from}::int, ${from + count - 1}::int) g`
      : sql`with recursive s(g) as (select ${from} union all select g + 1 from s where g < ${from + count - 1}) select g from s`;
  await sql`insert into jobs (id, payload, state, token, attempts, max_attempts, deadline, available_at, owner, lease_until,
      reason, dead_since, ordering_key, lease_expiries, enqueued_at, enqueue_position, updated_at, version, queue, priority,
      kind, last_failure)
    select 'job-' || g, '{"n":1}',
      case g % 20 when 0 then 'pending' when 1 then 'leased' when 2 then 'dead' else 'done' end,
      1, 1, 5, 100000000000, 1000 + g, case when g % 20 = 1 then 'w' end, case when g % 20 = 1 then 5000 + g end,
      case when g % 20 = 2 then 'exhausted' end, case when g % 20 = 2 then 1000 + g end, null, 0, 1000 + g, 3 * g, 1000 + g, 3,
      case when g % 3 = 0 then 'mail' else 'default' end, case when g % 40 = 0 then 5 else 0 end,
      case when g % 4 = 0 then 'mail.send' end, null
    from (${numbers}) n`.execute(db);
  // This store's table only: a bare `analyze` on PostgreSQL reaches every schema of the database,
  // other tests' tables too (one that keeps its tables never analysed would see them analysed).
  await sql`analyze jobs`.execute(db);
}
