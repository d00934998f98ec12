import type { GuidState, LedgerEntry } from "@verq/core";
import type { Selectable } from "kysely";
import type { LedgerTable } from "./ledgerTables.ts";

/** A `ledger` row as read back. */
export type LedgerRow = Selectable<LedgerTable>;

/** Maps a projection row to the domain's `LedgerEntry`. */
export function rowToEntry(row: LedgerRow): LedgerEntry {
  return {
    guid: row.guid,
    state: row.state as GuidState,
    code: row.code,
    request: row.request,
    response: row.response,
    fingerprint: row.fingerprint,
    attempts: Number(row.attempts),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    version: Number(row.version),
  };
}

/** The columns that change when a GUID's stream moves on. */
export function mutableLedgerColumns(entry: LedgerEntry) {
  return {
    state: entry.state,
    code: entry.code,
    response: entry.response,
    attempts: entry.attempts,
    updated_at: entry.updatedAt,
    version: entry.version,
  };
}

/** A full row for a new entry. */
export function entryToRow(entry: LedgerEntry): LedgerRow {
  return {
    guid: entry.guid,
    request: entry.request,
    fingerprint: entry.fingerprint,
    created_at: entry.createdAt,
    ...mutableLedgerColumns(entry),
  };
}
