import { GUID_STREAM, VersionConflict, type GuidEvent, type LedgerEntry } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { appendEvents } from "../events/appendEvents.ts";
import { mutableLedgerColumns } from "./ledgerRow.ts";
import { ledgerDb } from "./ledgerTables.ts";

/**
 * Writes what the guid machine decided, in the caller's transaction: the events after
 * `before`'s version, then the `ledger` row (`after`, their fold), updated only if it is still
 * at `before`'s version. A concurrent writer that got there first makes one of the two fail
 * with `VERQ_VERSION_CONFLICT`, and the caller's transaction must roll back.
 */
export async function commitGuidEvents(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  before: LedgerEntry,
  after: LedgerEntry,
  events: readonly GuidEvent[],
): Promise<void> {
  await appendEvents(trx, dialect, GUID_STREAM, before.guid, before.version, events);
  const result = await ledgerDb(trx)
    .updateTable("ledger")
    .set(mutableLedgerColumns(after))
    .where("guid", "=", before.guid)
    .where("version", "=", before.version)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new VersionConflict(GUID_STREAM, before.guid, before.version);
}
