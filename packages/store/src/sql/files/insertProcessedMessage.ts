import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { messageDb, type ProcessedTable } from "./messageTables.ts";

/**
 * Inserts one row into `processed`, in the caller's transaction. Returns `true` when it went
 * in, `false` when the `msg_id` PRIMARY KEY refused it (SPEC F3): the constraint, not a
 * preceding lookup, decides what is a duplicate, so two consumers racing with one key cannot
 * both record it. Any other error propagates.
 *
 * The insert runs `dialect.statements.isolated`, so that the transaction goes on after a refusal
 * on every engine.
 */
export async function insertProcessedMessage(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  row: ProcessedTable,
): Promise<boolean> {
  try {
    await dialect.statements.isolated(trx, () => messageDb(trx).insertInto("processed").values(row).execute());
    return true;
  } catch (error) {
    if (!dialect.errors.isUniqueViolation(error)) throw error;
    return false;
  }
}
