import { JOB_RETENTION_ID, JOB_RETENTION_STREAM, type JobsPruned } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { appendEvents } from "../events/appendEvents.ts";

/**
 * Appends one `jobs.pruned` event to the retention audit stream, in the caller's transaction
 * (the one that deletes the streams it names), before they are deleted: the newest event of the
 * log is then this one, which is never deleted, so no position is handed out twice. Its version
 * follows the stream's last; a concurrent prune that appended first makes this one fail with
 * `VERQ_VERSION_CONFLICT` and roll back.
 */
export async function appendRetentionAudit(trx: Kysely<VerqDatabase>, dialect: StoreDialect, event: JobsPruned): Promise<number> {
  const row = await trx
    .selectFrom("events")
    .select((eb) => eb.fn.max("version").as("version"))
    .where("stream_type", "=", JOB_RETENTION_STREAM)
    .where("stream_id", "=", JOB_RETENTION_ID)
    .executeTakeFirst();
  const version = Number(row?.version ?? 0);
  const [position] = await appendEvents(trx, dialect, JOB_RETENTION_STREAM, JOB_RETENTION_ID, version, [event]);
  return position ?? 0;
}
