import { GUID_STREAM, evolveGuid, newGuidEntry, type GuidEvent, type LedgerEntry } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { entryToRow } from "./ledgerRow.ts";
import { ledgerDb } from "./ledgerTables.ts";
import { readAllEvents } from "../events/readAllEvents.ts";
import { byStreamType, upcastEvents } from "../../declared/upcast-events.ts";

/**
 * Drops the `ledger` projection and folds it again from the `guid` streams of the event log,
 * in the caller's transaction, each event at its current shape (upcast through the GUID
 * stream's definition). The result must equal the live projection (tests check it).
 */
export async function rebuildGuidLedger(trx: Kysely<VerqDatabase>): Promise<{ entries: number; events: number }> {
  const ledger = ledgerDb(trx);
  await ledger.deleteFrom("ledger").execute();
  const events = upcastEvents(await readAllEvents(trx, GUID_STREAM), byStreamType());
  const entries = new Map<string, LedgerEntry>();
  for (const stored of events) {
    const event = { type: stored.type, data: stored.data } as GuidEvent;
    entries.set(stored.streamId, evolveGuid(entries.get(stored.streamId) ?? newGuidEntry(stored.streamId), event));
  }
  for (const entry of entries.values()) await ledger.insertInto("ledger").values(entryToRow(entry)).execute();
  return { entries: entries.size, events: events.length };
}
