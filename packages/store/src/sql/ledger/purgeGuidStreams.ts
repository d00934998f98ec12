import { GUID_STREAM, VersionConflict } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { ledgerDb } from "./ledgerTables.ts";

/**
 * Deletes whole GUID streams and their `ledger` rows, in the caller's transaction. This is the
 * only DELETE of events in verq (docs/architecture.md, "Design"): the guid machine accepted a
 * purge of each GUID in `guids`, its `guid.purged` event was appended right after the version
 * decided on (the UNIQUE constraint proved that nobody moved the entry since), and the caller
 * writes the audit event in the same transaction. A row that is not there is
 * `VERQ_VERSION_CONFLICT` (the transaction must roll back). Returns how many events were
 * deleted.
 */
export async function purgeGuidStreams(trx: Kysely<VerqDatabase>, guids: readonly string[]): Promise<number> {
  if (guids.length === 0) return 0;
  const rows = await ledgerDb(trx)
    .deleteFrom("ledger")
    .where("guid", "in", [...guids])
    .executeTakeFirst();
  if (Number(rows.numDeletedRows) !== guids.length) throw new VersionConflict(GUID_STREAM, guids[0] ?? "", 0);
  const events = await trx
    .deleteFrom("events")
    .where("stream_type", "=", GUID_STREAM)
    .where("stream_id", "in", [...guids])
    .executeTakeFirst();
  return Number(events.numDeletedRows);
}
