import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import type { MigrationStep } from "./migration-parts.ts";

/**
 * The event log's positions without SQLite's `AUTOINCREMENT`, which kept a separate counter row
 * that every append read and rewrote (one more page written per commit). A plain rowid key is
 * `max(position) + 1` on insert, so a position is never reused as long as the newest event is
 * never deleted: a trigger now refuses that, and the ledger's purge appends its audit event
 * before it deletes, so the audit event is always the newest. All of it is the engine's part
 * (`sqlite/005-lean-positions.ts`); nothing changes on PostgreSQL, whose sequence never goes back.
 */
export async function up(db: Kysely<VerqDatabase>, engine: MigrationStep): Promise<void> {
  await engine(db);
}
