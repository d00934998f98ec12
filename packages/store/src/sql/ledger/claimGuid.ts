import { GUID_STREAM, type GuidReceived, type LedgerEntry } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { appendEvents } from "../events/appendEvents.ts";
import { entryToRow } from "./ledgerRow.ts";
import { ledgerDb } from "./ledgerTables.ts";

/**
 * The claim of SPEC G4: one insert-or-nothing of the entry on the `ledger` primary key, in the
 * caller's transaction. The affected-row count, not a preceding lookup, decides the owner:
 * `true` means this call inserted the row (and then appends its `guid.received` event, version
 * 1); `false` means the GUID was already there and nothing was written. `ON CONFLICT DO
 * NOTHING` is the same on SQLite and PostgreSQL and leaves the transaction usable on both.
 */
export async function claimGuid(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  entry: LedgerEntry,
  event: GuidReceived,
): Promise<boolean> {
  const result = await ledgerDb(trx)
    .insertInto("ledger")
    .values(entryToRow(entry))
    .onConflict((oc) => oc.column("guid").doNothing())
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0n) !== 1) return false;
  await appendEvents(trx, dialect, GUID_STREAM, entry.guid, 0, [event]);
  return true;
}
