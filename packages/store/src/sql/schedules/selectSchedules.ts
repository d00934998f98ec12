import type { Schedule } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { rowToSchedule, scheduleDb } from "./scheduleTables.ts";

/** The schedules by name (all of them with `names` undefined), active only with `activeOnly`, in name order. */
export async function selectSchedules(
  db: Kysely<VerqDatabase>,
  options: { readonly names?: readonly string[]; readonly activeOnly?: boolean } = {},
): Promise<Schedule[]> {
  if (options.names !== undefined && options.names.length === 0) return [];
  let query = scheduleDb(db).selectFrom("schedules").selectAll();
  if (options.names !== undefined) query = query.where("name", "in", options.names);
  if (options.activeOnly === true) query = query.where("state", "=", "active");
  const rows = await query.orderBy("name").execute();
  return rows.map(rowToSchedule);
}
