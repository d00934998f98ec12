import type { HandledKinds, Job } from "@verq/core";
import { sql, type Kysely, type RawBuilder } from "kysely";
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
 * enqueue order). A job with an ordering key is a candidate only while no earlier job of its group is unfinished (a dead head blocks its own group only).
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
  await statements.beforeClaim(db);
  // Bound, or written into the text as a power of two on SQLite (see claimLimit): any extra rows are dropped below.
  const fetch = (n: number) => statements.claimLimit(n);
  // Leases that ran out at the same instant go in enqueue order: without the tiebreaker
  // PostgreSQL returns them in whatever order its index holds them, which updates reshuffle, so
  // two stores with one history could claim differently.
  const columns = sql.raw(JOB_COLUMNS);
  // A full queue still hands over its expired leases (that keeps its count), so the two lists differ.
  // Every text here is the same whatever the queues, kinds and limit (on PostgreSQL, arrays and a
  // bound limit): the dialect may keep them prepared.
  // One walk of `jobs_leased` per queue, each in lease order and stopping at its LIMIT, merged
  // here (as the due jobs below): over several queues at once the index gives no single order.
  const expired: unknown[][] = [];
  for (const queue of queues.expired) {
    expired.push(
      ...(await readRows(
        db,
        dialect,
        statements.fixed(
          sql`select ${columns}, j.enqueue_position from jobs j
            where j.state = 'leased' and j.queue = ${queue} and j.lease_until <= ${now} and ${headOfGroup}${ofKinds}
            order by j.lease_until, j.enqueue_position limit ${fetch(limit)} ${lock}`.compile(db),
        ),
      )),
    );
  }
  if (queues.expired.length > 1) expired.sort(leaseOrder);
  const expiredRows = expired.slice(0, limit);
  const remaining = limit - expiredRows.length;
  // One walk of `jobs_pending_due` per queue, each stopping at its LIMIT, merged here in claim
  // order: an IN list over several queues cannot be read from the index in that order, and both
  // engines then scanned and sorted the whole table. The enqueue position rides along, last.
  const due: unknown[][] = [];
  if (remaining > 0) {
    for (const queue of queues.due) {
      due.push(
        ...(await readRows(
          db,
          dialect,
          statements.fixed(
            sql`select ${columns}, j.enqueue_position from jobs j
              where j.state = 'pending' and j.queue = ${queue} and j.available_at <= ${now} and ${headOfGroup}${ofKinds}
              order by j.priority desc, j.available_at, j.enqueue_position limit ${fetch(remaining)} ${lock}`.compile(db),
          ),
        )),
      );
    }
    if (queues.due.length > 1) due.sort(claimOrder);
  }
  return [...expiredRows, ...due.slice(0, remaining)].map(valuesToJob);
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
