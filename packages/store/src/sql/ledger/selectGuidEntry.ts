import type { LedgerEntry } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { rowToEntry } from "./ledgerRow.ts";
import { ledgerDb } from "./ledgerTables.ts";

/** One GUID's ledger entry, or `null` when the ledger has none. */
export async function selectGuidEntry(db: Kysely<VerqDatabase>, guid: string): Promise<LedgerEntry | null> {
  const row = await ledgerDb(db).selectFrom("ledger").selectAll().where("guid", "=", guid).executeTakeFirst();
  return row === undefined ? null : rowToEntry(row);
}
