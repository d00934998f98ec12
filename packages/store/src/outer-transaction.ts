import { VerqError } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "./schema.ts";

/**
 * The service's transaction a call was given (`{ trx }`), if any. Only a transaction gives the
 * all-or-nothing promise: `store.db` itself would commit at once, so it is refused with
 * `VERQ_INVALID_ARGUMENT`.
 */
export function checkOuterTransaction(trx: unknown): Kysely<VerqDatabase> | undefined {
  if (trx === undefined) return undefined;
  if (typeof trx !== "object" || trx === null || (trx as { isTransaction?: unknown }).isTransaction !== true) {
    throw new VerqError(
      "VERQ_INVALID_ARGUMENT",
      "trx must be a Kysely transaction on this store's database (store.transaction or store.db.transaction())",
    );
  }
  return trx as Kysely<VerqDatabase>;
}
