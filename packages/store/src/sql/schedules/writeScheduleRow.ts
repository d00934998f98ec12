import { SCHEDULE_STREAM, VersionConflict, type Schedule } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { scheduleDb, scheduleToRow } from "./scheduleTables.ts";

/**
 * Writes a schedule's row after a change: inserted for a stream created from version 0, else
 * updated only while still at the version decided on (`VERQ_VERSION_CONFLICT` otherwise).
 */
export async function writeScheduleRow(trx: Kysely<VerqDatabase>, before: Schedule, after: Schedule): Promise<void> {
  const row = scheduleToRow(after);
  if (before.version === 0) {
    await scheduleDb(trx).insertInto("schedules").values(row).execute();
    return;
  }
  const { name: _name, ...columns } = row;
  const result = await scheduleDb(trx)
    .updateTable("schedules")
    .set(columns)
    .where("name", "=", before.name)
    .where("version", "=", before.version)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new VersionConflict(SCHEDULE_STREAM, before.name, before.version);
}
