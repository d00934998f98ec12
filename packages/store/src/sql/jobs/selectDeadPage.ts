import type { DeadReason, Job } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { rowToJob } from "./jobRow.ts";

/** Where a page of dead jobs starts: after this job in (dead since, id) order. */
export interface DeadCursor {
  readonly deadSince: number;
  readonly id: string;
}

/**
 * Which dead jobs a page reads: optionally of one reason, or of any reason but some, dead at or
 * before a time, of one kind, after a cursor.
 */
export interface DeadFilter {
  readonly reason?: DeadReason | undefined;
  /** Leaves out jobs dead for these reasons (a bulk redrive passes over `cancelled` ones unless asked for that reason). */
  readonly exceptReasons?: readonly DeadReason[] | undefined;
  /** Only jobs dead since this time or earlier (ms since the epoch). */
  readonly deadAtOrBefore?: number | undefined;
  /** Only jobs of this kind; `null`: only jobs without a kind. */
  readonly kind?: string | null | undefined;
}

/**
 * Up to `limit` dead jobs matching `filter`, oldest death first (ties by id), strictly after
 * `after`: a keyset page on the `jobs_dead_since` index, so that a long listing neither skips
 * nor repeats a job while others leave the dead state.
 */
export async function selectDeadPage(
  db: Kysely<VerqDatabase>,
  filter: DeadFilter,
  after: DeadCursor | null,
  limit: number,
): Promise<Job[]> {
  let query = db.selectFrom("jobs").selectAll().where("state", "=", "dead");
  if (filter.reason !== undefined) query = query.where("reason", "=", filter.reason);
  if (filter.exceptReasons !== undefined && filter.exceptReasons.length > 0) {
    query = query.where("reason", "not in", filter.exceptReasons);
  }
  if (filter.deadAtOrBefore !== undefined) query = query.where("dead_since", "<=", filter.deadAtOrBefore);
  if (filter.kind !== undefined)
    query = filter.kind === null ? query.where("kind", "is", null) : query.where("kind", "=", filter.kind);
  if (after !== null) {
    query = query.where((eb) =>
      eb.or([eb("dead_since", ">", after.deadSince), eb.and([eb("dead_since", "=", after.deadSince), eb("id", ">", after.id)])]),
    );
  }
  const rows = await query.orderBy("dead_since").orderBy("id").limit(limit).execute();
  return rows.map(rowToJob);
}
