import { sql, type Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { messageDb, type ProcessedTable } from "./messageTables.ts";

/**
 * Inserts one row into `processed`, in the caller's transaction. Returns `true` when it went
 * in, `false` when the `msg_id` PRIMARY KEY refused it (SPEC F3): the constraint, not a
 * preceding lookup, decides what is a duplicate, so two consumers racing with one key cannot
 * both record it. Any other error propagates.
 *
 * SQLite undoes only the failed statement and the transaction goes on; PostgreSQL would abort
 * the whole transaction, so there the insert runs inside a savepoint.
 */
export async function insertProcessedMessage(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  row: ProcessedTable,
): Promise<boolean> {
  const savepoint = dialect.name === "postgres";
  if (savepoint) await sql`savepoint verq_processed_insert`.execute(trx);
  try {
    await messageDb(trx).insertInto("processed").values(row).execute();
    if (savepoint) await sql`release savepoint verq_processed_insert`.execute(trx);
    return true;
  } catch (error) {
    if (!dialect.isUniqueViolation(error)) throw error;
    if (savepoint) await sql`rollback to savepoint verq_processed_insert`.execute(trx);
    return false;
  }
}
