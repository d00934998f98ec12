import type { HandledKinds, Job } from "@verq/core";
import { sql, type CompiledQuery, type Kysely, type RawBuilder } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { readRows } from "../readRows.ts";
import { JOB_COLUMNS, JOB_COLUMN_COUNT, columnIndex, valuesToJob } from "./jobRow.ts";

const PRIORITY = columnIndex("priority");
const AVAILABLE_AT = columnIndex("available_at");
const LEASE_UNTIL = columnIndex("lease_until");

/**
 * Jobs that may be claimable at `now`: leased with an expired lease (`lease_until <= now`,
 * oldest lease first) in `queues.expired`, or pending and due in `queues.due` (`available_at <= now`: higher
 * priority first, then due time and enqueue order), through the partial indexes `jobs_leased`
 * (by queue, lease end, enqueue order) and `jobs_pending_due` (by queue, priority, due time,
 * enqueue order), one walk per queue (see {@link walkQueues}). A job with an ordering key is a
 * candidate only while no earlier job of its group is unfinished (a dead head blocks its own
 * group only).
 *
 * This only narrows the search: the job machine decides each claim.
 */
export async function selectClaimCandidates(
  db: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  now: number,
  limit: number,
  queues: { readonly expired: readonly string[]; readonly due: readonly string[] },
  kinds?: HandledKinds,
): Promise<Job[]> {
  const { statements } = dialect;
  const headOfGroup = sql<boolean>`(j.ordering_key is null or not exists (
      select 1 from jobs h where h.ordering_key = j.ordering_key
        and h.enqueue_position < j.enqueue_position and h.state <> 'done'))`;
  const ofKinds = kindFilter(dialect, kinds);
  const lock = sql.raw(statements.claimLockSuffix);
  const columns = sql.raw(JOB_COLUMNS);
  // A full queue still hands over its expired leases (that keeps its count), so the two lists differ.
  // Leases that ran out at the same instant go in enqueue order: without the tiebreaker
  // PostgreSQL returns them in whatever order its index holds them, which updates reshuffle, so
  // two stores with one history could claim differently.
  const expired = await walkQueues(db, dialect, queues.expired, leaseOrder, (queue) =>
    sql`select ${columns}, j.enqueue_position from jobs j
      where j.state = 'leased' and j.queue = ${queue} and j.lease_until <= ${now} and ${headOfGroup}${ofKinds}
      order by j.lease_until, j.enqueue_position limit ${statements.claimLimit(limit)} ${lock}`.compile(db),
  );
  const expiredRows = expired.slice(0, limit);
  const remaining = limit - expiredRows.length;
  const due =
    remaining === 0
      ? []
      : await walkQueues(db, dialect, queues.due, claimOrder, (queue) =>
          sql`select ${columns}, j.enqueue_position from jobs j
            where j.state = 'pending' and j.queue = ${queue} and j.available_at <= ${now} and ${headOfGroup}${ofKinds}
            order by j.priority desc, j.available_at, j.enqueue_position limit ${statements.claimLimit(remaining)} ${lock}`.compile(
            db,
          ),
        );
  return [...expiredRows, ...due.slice(0, remaining)].map(valuesToJob);
}

/**
 * The rows of one walk of a partial index per queue, each in the index's order and stopping at
 * its LIMIT, merged in `order`: an IN list over several queues cannot be read from the index in
 * one order, and both engines then scanned and sorted every matching row. Each statement's text
 * is the same whatever its queue, kinds and limit where the engine binds them (`fixed`). The rows
 * are JOB_COLUMNS and the enqueue position, last.
 */
async function walkQueues(
  db: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  queues: readonly string[],
  order: (a: readonly unknown[], b: readonly unknown[]) => number,
  statement: (queue: string) => CompiledQuery,
): Promise<unknown[][]> {
  const rows: unknown[][] = [];
  for (const queue of queues) rows.push(...(await readRows(db, dialect, dialect.statements.fixed(statement(queue)))));
  if (queues.length > 1) rows.sort(order);
  return rows;
}

/**
 * The kinds condition of both statements, or nothing at all without `kinds` (the claim of a
 * worker that takes every job keeps its statements as they were). A job without a kind has
 * `kind` null, which no list of kinds matches.
 */
function kindFilter(dialect: StoreDialect, kinds: HandledKinds | undefined): RawBuilder<unknown> {
  if (kinds === undefined) return sql``;
  const kindless = kinds.kindless ? sql`j.kind is null` : sql`1 = 0`;
  if (kinds.names.length === 0) return sql` and ${kindless}`;
  const named = dialect.statements.isOneOf("j.kind", kinds.names);
  return kinds.kindless ? sql` and (${named} or ${kindless})` : sql` and ${named}`;
}

/** Earlier lease end first, then enqueue order: on rows of JOB_COLUMNS plus the enqueue position. */
function leaseOrder(a: readonly unknown[], b: readonly unknown[]): number {
  return Number(a[LEASE_UNTIL]) - Number(b[LEASE_UNTIL]) || Number(a[JOB_COLUMN_COUNT]) - Number(b[JOB_COLUMN_COUNT]);
}

/** Higher priority first, then earlier due time, then enqueue order: on rows of JOB_COLUMNS plus the enqueue position. */
function claimOrder(a: readonly unknown[], b: readonly unknown[]): number {
  const [priority, availableAt, position] = [PRIORITY, AVAILABLE_AT, JOB_COLUMN_COUNT];
  return (
    Number(b[priority]) - Number(a[priority]) ||
    Number(a[availableAt]) - Number(b[availableAt]) ||
    Number(a[position]) - Number(b[position])
  );
}
