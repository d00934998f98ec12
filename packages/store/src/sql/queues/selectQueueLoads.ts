import type { QueueLoad } from "@verq/core";
import { sql, type Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { readRows } from "../readRows.ts";

/** The topic a claim of a limited queue (and a change of its limit) takes turns on. */
export const queueTopic = (name: string): string => `verq.queue:${name}`;

/**
 * The load of each of `queues` that has a limit, in the caller's claim transaction: its
 * `maxLeased` and how many of its jobs are leased now (expired leases included: their holder may
 * still be working). Before counting, the transaction takes each limited queue's turn, in name
 * order (so two claimers never wait on each other crosswise): on PostgreSQL, where claimers run
 * at once, two of them must never both see the last free slot; SQLite's write lock already
 * serialises claims. Unlimited queues are not in the map and cost one indexed read.
 */
export async function selectQueueLoads(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  queues: readonly string[],
): Promise<Map<string, QueueLoad>> {
  const loads = new Map<string, QueueLoad>();
  const { statements } = dialect;
  // Every claim reads this: on SQLite through the hot path (synchronously, rows as arrays); its
  // text is the same whatever the queues (on PostgreSQL an array), so the dialect may keep it prepared.
  const rows = await readRows(
    trx,
    dialect,
    statements.fixed(
      sql`select name, max_leased from queues
        where ${statements.isOneOf("name", queues)} and max_leased is not null order by name`.compile(trx),
    ),
  );
  if (rows.length === 0) return loads;
  const limits = rows.map(([name, max]) => ({ name: String(name), max_leased: Number(max) }));
  for (const { name } of limits) await statements.exclusive(trx, queueTopic(name));
  const names = limits.map((l) => l.name);
  const counts = await readRows(
    trx,
    dialect,
    statements.fixed(
      sql`select queue, count(*) as n from jobs
        where state = 'leased' and ${statements.isOneOf("queue", names)} group by queue`.compile(trx),
    ),
  );
  const leased = new Map(counts.map(([queue, n]) => [String(queue), Number(n)]));
  for (const { name, max_leased } of limits) loads.set(name, { leased: leased.get(name) ?? 0, maxLeased: Number(max_leased) });
  return loads;
}
