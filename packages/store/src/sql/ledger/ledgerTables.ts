import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/** The `ledger` projection (migration 003): one row per GUID, the fold of its `guid` stream. */
export interface LedgerTable {
  guid: string;
  state: string;
  code: string;
  request: string;
  response: string | null;
  fingerprint: string;
  attempts: number;
  created_at: number;
  updated_at: number;
  version: number;
}

/** The tables the ledger's SQL sees: the shared ones and `ledger`. */
export type LedgerDatabase = VerqDatabase & { ledger: LedgerTable };

/** A view of `db` (or a transaction) that knows the `ledger` table. */
export function ledgerDb(db: Kysely<VerqDatabase>): Kysely<LedgerDatabase> {
  return db.withTables<{ ledger: LedgerTable }>();
}
