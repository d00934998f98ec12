import type { HandledKinds, Job } from "@verq/core";
import { sql, type Kysely, type RawBuilder } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { readRows } from "../readRows.ts";
import { JOB_COLUMNS, JOB_COLUMN_COUNT, columnIndex, valuesToJob } from "./jobRow.ts";

const PRIORITY = columnIndex("priority");
const AVAILABLE_AT = columnIndex("available_at");
const LEASE_UNTIL = columnIndex("lease_until");
/** The column after JOB_COLUMNS and the enqueue position: which walk found the row. */
const WALK = JOB_COLUMN_COUNT + 1;

/**
 * Jobs that may be claimable at `now`: leased with an expired lease (`lease_until <= now`,
 * oldest lease first) in `queues.expired`, or pending and due in `queues.due` (`available_at <= now`: higher
 * priority first, then due time and enqueue order), through the partial indexes `jobs_leased`
 * (by queue, lease end, enqueue order) and `jobs_pending_due` (by queue, priority, due time,
 * enqueue order), in one statement per queue: an IN list over several queues cannot be read
 * from an index in one order (both engines then scanned and sorted every matching row), so each
 * queue's walks stop at their LIMIT and the rows are merged here. A job with an ordering key is a
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
  const expiredOf = (queue: string) => sql`select ${columns}, j.enqueue_position from jobs j
      where j.state = 'leased' and j.queue = ${queue} and j.lease_until <= ${now} and ${headOfGroup}${ofKinds}
      order by j.lease_until, j.enqueue_position limit ${statements.claimLimit(limit)} ${lock}`;
  const dueOf = (queue: string, max: RawBuilder<unknown>) => sql`select ${columns}, j.enqueue_position from jobs j
      where j.state = 'pending' and j.queue = ${queue} and j.available_at <= ${now} and ${headOfGroup}${ofKinds}
      order by j.priority desc, j.available_at, j.enqueue_position limit ${max} ${lock}`;
  // One statement a queue: its expired leases and, where it has room, its due jobs after them,
  // as many as its expired ones leave of the limit (never below 0: the expired ones stop at it).
  // Each row ends with its walk: 0 expired, 1 due.
  const rows: unknown[][] = [];
  for (const queue of new Set([...queues.expired, ...queues.due])) {
    const expired = queues.expired.includes(queue);
    const due = queues.due.includes(queue);
    const statement =
      expired && due
        ? sql`with expired as (${expiredOf(queue)}),
            due as (${dueOf(queue, sql`${statements.claimLimit(limit)} - (select count(*) from expired)`)})
            select expired.*, 0 from expired union all select due.*, 1 from due`
        : expired
          ? sql`select expired.*, 0 from (${expiredOf(queue)}) as expired`
          : sql`select due.*, 1 from (${dueOf(queue, statements.claimLimit(limit))}) as due`;
    rows.push(...(await readRows(db, dialect, statements.fixed(statement.compile(db)))));
  }
  const isExpired = (row: readonly unknown[]) => Number(row[WALK]) === 0;
  // Several queues' rows merge in the order of each walk (one queue's are in it already).
  const expiredRows = rows.filter(isExpired).sort(leaseOrder).slice(0, limit);
  const dueRows = rows.filter((row) => !isExpired(row)).sort(claimOrder);
  return [...expiredRows, ...dueRows.slice(0, limit - expiredRows.length)].map(valuesToJob);
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
