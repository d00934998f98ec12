import type { LedgerEntry } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { executeTemplate } from "../queryTemplate.ts";
import { rowToEntry, type LedgerRow } from "./ledgerRow.ts";
import { ledgerDb } from "./ledgerTables.ts";

/** One GUID's ledger entry, or `null` when the ledger has none: a query compiled once per dialect (the relay reads it for every request). */
export async function selectGuidEntry(
  db: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  guid: string,
): Promise<LedgerEntry | null> {
  const { rows } = await executeTemplate<LedgerRow>(
    db,
    dialect,
    "ledger.select-one",
    (param) => ledgerDb(db).selectFrom("ledger").selectAll().where("guid", "=", param<string>("guid")),
    { guid },
  );
  const row = rows[0];
  return row === undefined ? null : rowToEntry(row);
}
