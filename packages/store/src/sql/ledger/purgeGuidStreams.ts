import { GUID_STREAM } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { ledgerDb } from "./ledgerTables.ts";

/**
 * Deletes whole GUID streams and their `ledger` rows, in the caller's transaction. This is the
 * only DELETE of events in verq (DESIGN "Events and projections"): the caller has had the guid
 * machine accept a purge for every GUID in `guids`, and writes the audit event in the same
 * transaction. Returns how many events were deleted.
 */
export async function purgeGuidStreams(trx: Kysely<VerqDatabase>, guids: readonly string[]): Promise<number> {
  if (guids.length === 0) return 0;
  const events = await trx
    .deleteFrom("events")
    .where("stream_type", "=", GUID_STREAM)
    .where("stream_id", "in", [...guids])
    .executeTakeFirst();
  await ledgerDb(trx)
    .deleteFrom("ledger")
    .where("guid", "in", [...guids])
    .execute();
  return Number(events.numDeletedRows);
}
