import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import type { DeadFilter } from "./selectDeadPage.ts";

/** How many dead jobs match `filter` (the total a bulk redrive's progress counts towards). */
export async function countDeadJobs(db: Kysely<VerqDatabase>, filter: DeadFilter): Promise<number> {
  let query = db
    .selectFrom("jobs")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("state", "=", "dead");
  if (filter.reason !== undefined) query = query.where("reason", "=", filter.reason);
  if (filter.exceptReasons !== undefined && filter.exceptReasons.length > 0) {
    query = query.where("reason", "not in", filter.exceptReasons);
  }
  if (filter.deadAtOrBefore !== undefined) query = query.where("dead_since", "<=", filter.deadAtOrBefore);
  if (filter.kind !== undefined)
    query = filter.kind === null ? query.where("kind", "is", null) : query.where("kind", "=", filter.kind);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}
