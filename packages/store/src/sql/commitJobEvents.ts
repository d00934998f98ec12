import { JOB_STREAM, VersionConflict, type Job, type JobEvent } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../dialect/store-dialect.ts";
import type { VerqDatabase } from "../schema.ts";
import { appendEvents } from "./appendEvents.ts";
import { jobToRow, mutableColumns } from "./job-row.ts";
import { projectRedrives } from "./projectRedrives.ts";

/**
 * Writes what the machine decided, in the caller's transaction: the events after `before`'s
 * version, then the `jobs` row (`after`, which is their fold) and the `redrives` audit rows.
 * Events and projections commit together or not at all.
 */
export async function commitJobEvents(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  before: Job | null,
  after: Job,
  events: readonly JobEvent[],
  payloadJson?: string,
): Promise<void> {
  const positions = await appendEvents(trx, dialect, JOB_STREAM, after.id, before?.version ?? 0, events);
  if (before === null) {
    const position = positions[0];
    if (position === undefined || payloadJson === undefined) throw new Error("a new job needs its enqueued event and payload");
    await trx.insertInto("jobs").values(jobToRow(after, payloadJson, position)).execute();
  } else {
    const result = await trx
      .updateTable("jobs")
      .set(mutableColumns(after))
      .where("id", "=", after.id)
      .where("version", "=", before.version)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) throw new VersionConflict(JOB_STREAM, after.id, before.version);
  }
  await projectRedrives(trx, after.id, events, positions);
}
