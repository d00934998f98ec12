import type { QueueLoad } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { readBatch } from "../batchValues.ts";

/** The topic a claim of a limited queue (and a change of its limit) takes turns on. */
export const queueTopic = (name: string): string => `verq.queue:${name}`;

/**
 * The load of each of `queues` that has a limit, read first in the caller's claim transaction
 * (with the claim's planner settings, see `Statements.withClaimSettings`): its
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
  // Every claim reads this, its queues as a batch of keys (`readBatch`): no query compiled per
  // claim, on SQLite through the hot path, on PostgreSQL one prepared text whatever the queues.
  const keys = (names: readonly string[]) => names.map((name) => [name]);
  // The claim's planner settings come with this read (see Statements.withClaimSettings).
  const rows = await readBatch(trx, dialect, ["text"], keys(queues), (v) =>
    dialect.statements.withClaimSettings(
      `select name, max_leased from queues where ${v.contains("name")} and max_leased is not null`,
    ),
  );
  const limits = rows
    .filter(([name]) => name !== null)
    .map(([name, max]) => ({ name: String(name), max_leased: Number(max) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (limits.length === 0) return loads;
  for (const { name } of limits) await dialect.statements.exclusive(trx, queueTopic(name));
  const counts = await readBatch(
    trx,
    dialect,
    ["text"],
    keys(limits.map((l) => l.name)),
    (v) => `select queue, count(*) as n from jobs where state = 'leased' and ${v.contains("queue")} group by queue`,
  );
  const leased = new Map(counts.map(([queue, n]) => [String(queue), Number(n)]));
  for (const { name, max_leased } of limits) loads.set(name, { leased: leased.get(name) ?? 0, maxLeased: Number(max_leased) });
  return loads;
}
