import type { Kysely } from "kysely";
import type { StoreDialect } from "../dialect/store-dialect.ts";
import type { VerqDatabase } from "../schema.ts";

/**
 * The event log's positions without SQLite's `AUTOINCREMENT`, which kept a separate counter row
 * that every append read and rewrote (one more page written per commit). A plain rowid key is
 * `max(position) + 1` on insert, so a position is never reused as long as the newest event is
 * never deleted: a trigger now refuses that, and the ledger's purge appends its audit event
 * before it deletes, so the audit event is always the newest. See
 * {@link StoreDialect.leanPositions}; nothing changes on PostgreSQL, whose sequence never goes back.
 */
export async function up(db: Kysely<VerqDatabase>, dialect: StoreDialect): Promise<void> {
  await dialect.leanPositions(db);
}
