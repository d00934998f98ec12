import type { GuidState, LedgerEntry } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { rowToEntry } from "./ledgerRow.ts";
import { ledgerDb } from "./ledgerTables.ts";

/** Where a scan in (updated_at, guid) order resumes: after this entry. */
export interface LedgerCursor {
  readonly updatedAt: number;
  readonly guid: string;
}

const allEntries = (db: Kysely<VerqDatabase>) => ledgerDb(db).selectFrom("ledger").selectAll();
type LedgerQuery = ReturnType<typeof allEntries>;

/** One page of the entries `narrow` keeps, in (updated_at, guid) order, after `cursor`. */
async function selectPage(
  db: Kysely<VerqDatabase>,
  narrow: (query: LedgerQuery) => LedgerQuery,
  limit: number,
  cursor: LedgerCursor | null,
): Promise<LedgerEntry[]> {
  let query = narrow(allEntries(db));
  if (cursor !== null) {
    query = query.where((eb) =>
      eb.or([
        eb("updated_at", ">", cursor.updatedAt),
        eb.and([eb("updated_at", "=", cursor.updatedAt), eb("guid", ">", cursor.guid)]),
      ]),
    );
  }
  const rows = await query.orderBy("updated_at").orderBy("guid").limit(limit).execute();
  return rows.map(rowToEntry);
}

/**
 * Entries in any of `states`, oldest change first (ties by GUID), at most `limit`, after
 * `cursor` when given. A query only narrows the search: the guid machine decides each entry.
 */
export async function selectGuidEntriesByState(
  db: Kysely<VerqDatabase>,
  states: readonly GuidState[],
  limit: number,
  cursor: LedgerCursor | null = null,
): Promise<LedgerEntry[]> {
  if (states.length === 0) return [];
  return selectPage(db, (query) => query.where("state", "in", [...states]), limit, cursor);
}

/**
 * Entries of every state, oldest change first (ties by GUID), at most `limit`, after `cursor`:
 * the purge's scan. No filter by state or age: the guid machine decides each entry, and the
 * scan stops at the first one the machine finds too young (every later one is younger).
 */
export async function selectGuidEntriesOldestFirst(
  db: Kysely<VerqDatabase>,
  limit: number,
  cursor: LedgerCursor | null,
): Promise<LedgerEntry[]> {
  return selectPage(db, (query) => query, limit, cursor);
}
