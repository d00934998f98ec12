import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import type { ColumnCheckChange } from "./column-check-change.ts";
import type { MigrationStep } from "./migration-parts.ts";

/** The change of migration 007: a dead job's reason may be `cancelled`. */
export const CANCELLED_REASON: ColumnCheckChange = {
  table: "jobs",
  column: "reason",
  from: "reason in ('permanent', 'exhausted', 'deadline')",
  to: "reason in ('permanent', 'exhausted', 'deadline', 'cancelled')",
};

/**
 * Cancellation: a job cancelled by an operator is dead with the reason `cancelled`, so the
 * `jobs` projection's check on dead reasons admits it ({@link CANCELLED_REASON}). Rows, indexes
 * and the other constraints stay as they are; how the check is replaced is the engine's part.
 */
export async function up(db: Kysely<VerqDatabase>, engine: MigrationStep): Promise<void> {
  await engine(db);
}
