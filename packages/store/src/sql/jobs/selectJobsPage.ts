import type { DeadReason, Job, JobState } from "@verq/core";
import { sql, type Kysely, type Selectable, type SelectQueryBuilder } from "kysely";
import type { Statements } from "../../dialect/statements.ts";
import { FINISHED_JOBS } from "../../migrations/012-lean-job-indexes.ts";
import type { JobsTable, VerqDatabase } from "../../schema.ts";
import { rowToJob } from "./jobRow.ts";

/** Which jobs a listing reads; every field is optional and they combine with AND. */
export interface JobsPageFilter {
  readonly state?: JobState | undefined;
  readonly queue?: string | undefined;
  /** Only jobs of this kind; `null`: only jobs without one. */
  readonly kind?: string | null | undefined;
  /** Only dead jobs of this reason (the state is then `dead`). */
  readonly reason?: DeadReason | undefined;
  /** Only jobs whose id starts with this text. */
  readonly idPrefix?: string | undefined;
}

/**
 * The order a listing walks, one per index it reads (see {@link selectJobsPage}): by id without a
 * state, else the order of the state's own partial index.
 */
export type JobWalk = "id" | JobState;

/** The kind of each key of a walk's cursor, in order. */
export const WALK_KEYS: Readonly<Record<JobWalk, readonly ("text" | "number")[]>> = {
  id: ["text"],
  pending: ["text", "number", "number", "number"],
  leased: ["text", "number", "number"],
  done: ["number", "text"],
  dead: ["number", "text"],
};

/** Where a page resumes: the keys of the last job of the page before, in its walk's order. */
export type JobKeys = readonly (string | number)[];

/** A page of jobs and, when more follow, the keys of its last job. */
export interface JobsPageRows {
  readonly jobs: Job[];
  readonly last: JobKeys | null;
}

type Row = Selectable<JobsTable>;
type JobsQuery = SelectQueryBuilder<VerqDatabase, "jobs", Row>;

/**
 * Each state's condition written as its partial index names it: SQLite reads a partial index
 * only for a query that carries the index's own condition as text, never as a bound parameter.
 */
const STATE_IS: Readonly<Record<JobState, string>> = {
  pending: "state = 'pending'",
  leased: "state = 'leased'",
  done: "state = 'done'",
  dead: "state = 'dead'",
};

/** The first text after every text that starts with `prefix`, in code point order; null when there is none. */
export function prefixEnd(prefix: string): string | null {
  const points = [...prefix];
  const last = points.pop()?.codePointAt(0);
  if (last === undefined || last >= 0x10ffff) return null;
  // The code point after a lone surrogate's range: a surrogate alone is not text a driver can bind.
  const next = last + 1 >= 0xd800 && last + 1 <= 0xdfff ? 0xe000 : last + 1;
  return points.join("") + String.fromCodePoint(next);
}

/** What of the dialect a listing's statements need. */
type PageStatements = Pick<Statements, "notSought">;

function filtered(db: Kysely<VerqDatabase>, statements: PageStatements, walk: JobWalk, filter: JobsPageFilter): JobsQuery {
  const state = walk === "id" ? undefined : walk;
  let query = db.selectFrom("jobs").selectAll();
  if (state !== undefined) query = query.where(sql.raw<boolean>(STATE_IS[state]));
  // Done jobs through `jobs_finished_updated`, whose condition is FINISHED_JOBS.
  if (state === "done") query = query.where(sql.raw<boolean>(FINISHED_JOBS));
  if (filter.queue !== undefined) {
    // Sought where it leads the walk's index; a filter elsewhere, never a seek of `jobs_counts`.
    const queue = walk === "pending" || walk === "leased" ? sql.ref("queue") : statements.notSought("queue");
    query = query.where(sql<boolean>`${queue} = ${filter.queue}`);
  }
  // Kind leads no index a walk reads: a filter always (`jobs_counts` could be skip-scanned by it).
  const kind = statements.notSought("kind");
  if (filter.kind !== undefined)
    query = query.where(filter.kind === null ? sql<boolean>`${kind} is null` : sql<boolean>`${kind} = ${filter.kind}`);
  if (filter.reason !== undefined) query = query.where("reason", "=", filter.reason);
  const prefix = filter.idPrefix;
  if (prefix !== undefined) {
    // A range the primary key serves, and the prefix itself, which holds under any collation.
    query = query.where("id", ">=", prefix).where(sql<boolean>`substr(id, 1, ${[...prefix].length}) = ${prefix}`);
    const end = prefixEnd(prefix);
    if (end !== null) query = query.where("id", "<", end);
  }
  return query;
}

/** One step of a walk: the rows it narrows to, in the order of the index it reads. */
type Step = (query: JobsQuery) => JobsQuery;

/** The claim order of pending jobs, the order of `jobs_pending_due` within a queue. */
const pendingOrder = (query: JobsQuery) => query.orderBy("priority", "desc").orderBy("available_at").orderBy("enqueue_position");

/**
 * The steps of a walk after `keys` (from the start when null). Every step reads one index in
 * its own order. Pending jobs walk `jobs_pending_due` (queue, priority descending, due time,
 * enqueue order), whose mixed directions no single row comparison follows: the rest of the
 * cursor's queue and priority, then its queue's lower priorities, then the later queues.
 */
function stepsOf(walk: JobWalk, keys: JobKeys | null, filter: JobsPageFilter): Step[] {
  const byQueue = filter.queue === undefined;
  switch (walk) {
    case "id":
      return [(q) => (keys === null ? q : q.where("id", ">", keys[0] as string)).orderBy("id")];
    case "pending": {
      if (keys === null) return [(q) => pendingOrder(byQueue ? q.orderBy("queue") : q)];
      const [queue, priority, availableAt, position] = keys as [string, number, number, number];
      const steps: Step[] = [
        (q) =>
          q
            .where("queue", "=", queue)
            .where("priority", "=", priority)
            .where((eb) => eb(eb.refTuple("available_at", "enqueue_position"), ">", eb.tuple(availableAt, position)))
            .orderBy("available_at")
            .orderBy("enqueue_position"),
        (q) => pendingOrder(q.where("queue", "=", queue).where("priority", "<", priority)),
      ];
      if (byQueue) steps.push((q) => pendingOrder(q.where("queue", ">", queue).orderBy("queue")));
      return steps;
    }
    case "leased": {
      const after = keys as [string, number, number] | null;
      return [
        (q) =>
          (after === null
            ? q
            : q.where((eb) => eb(eb.refTuple("queue", "lease_until", "enqueue_position"), ">", eb.tuple(...after)))
          )
            .orderBy("queue")
            .orderBy("lease_until")
            .orderBy("enqueue_position"),
      ];
    }
    case "done": {
      const after = keys as [number, string] | null;
      return [
        (q) =>
          (after === null ? q : q.where((eb) => eb(eb.refTuple("updated_at", "id"), "<", eb.tuple(...after))))
            .orderBy("updated_at", "desc")
            .orderBy("id", "desc"),
      ];
    }
    case "dead": {
      const after = keys as [number, string] | null;
      return [
        (q) =>
          (after === null
            ? q
            : q
                .where("dead_since", "<=", after[0])
                .where((eb) => eb.or([eb("dead_since", "<", after[0]), eb("id", "<", after[1])]))
          )
            .orderBy("dead_since", "desc")
            .orderBy("id", "desc"),
      ];
    }
  }
}

/** The keys of `row` in `walk`'s order: what the next page resumes after. */
function keysOf(walk: JobWalk, row: Row): JobKeys {
  switch (walk) {
    case "id":
      return [row.id];
    case "pending":
      return [row.queue, Number(row.priority), Number(row.available_at), Number(row.enqueue_position)];
    case "leased":
      return [row.queue, Number(row.lease_until), Number(row.enqueue_position)];
    case "done":
      return [Number(row.updated_at), row.id];
    case "dead":
      return [Number(row.dead_since), row.id];
  }
}

/** The walk a listing with `filter` takes: its state's (a dead reason's is `dead`), else by id. */
export const walkOf = (filter: JobsPageFilter): JobWalk => filter.state ?? (filter.reason === undefined ? "id" : "dead");

/**
 * The statements of a page of {@link selectJobsPage}, each before its LIMIT, in the order they
 * run (the next only while the page is not full): what the plans of the listing are read from.
 */
export function jobsPageQueries(
  db: Kysely<VerqDatabase>,
  statements: PageStatements,
  filter: JobsPageFilter,
  after: JobKeys | null,
): JobsQuery[] {
  const walk = walkOf(filter);
  return stepsOf(walk, after, filter).map((step) => step(filtered(db, statements, walk, filter)));
}

/**
 * Up to `limit` jobs matching `filter`, strictly after `after` (the keys a page before ended
 * with), as a keyset page on the index `walk` reads, never an OFFSET: a page costs the same
 * however deep it is, and no job is skipped or repeated while the others stay where they are.
 *
 * - no state: by id, on the primary key;
 * - `pending`: in claim order per queue (queue, priority highest first, due time, enqueue order) on `jobs_pending_due`;
 * - `leased`: per queue, the lease that ends first first, on `jobs_leased`;
 * - `done`: latest finished first, on `jobs_finished_updated`;
 * - `dead`: latest death first, on `jobs_dead_since`.
 *
 * Queue (but where it leads the index), kind, reason and id prefix (but without a state) narrow
 * the walk as filters: a rare value walks much of its index to fill a page.
 */
export async function selectJobsPage(
  db: Kysely<VerqDatabase>,
  statements: PageStatements,
  filter: JobsPageFilter,
  after: JobKeys | null,
  limit: number,
): Promise<JobsPageRows> {
  const walk = walkOf(filter);
  const rows: Row[] = [];
  // One row past the page tells whether another page follows.
  for (const query of jobsPageQueries(db, statements, filter, after)) {
    const wanted = limit + 1 - rows.length;
    if (wanted <= 0) break;
    rows.push(...(await query.limit(wanted).execute()));
  }
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { jobs: page.map(rowToJob), last: rows.length > limit && last !== undefined ? keysOf(walk, last) : null };
}
