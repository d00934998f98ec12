import type { Kysely } from "kysely";
import type { StoreDialect } from "../dialect/store-dialect.ts";
import type { VerqDatabase } from "../schema.ts";

/**
 * Cancellation: a job cancelled by an operator is dead with the reason `cancelled`, so the
 * `jobs` projection's check on dead reasons admits it. Rows, indexes and the other constraints
 * stay as they are (see {@link StoreDialect.replaceColumnCheck}).
 */
export async function up(db: Kysely<VerqDatabase>, dialect: StoreDialect): Promise<void> {
  await dialect.replaceColumnCheck(db, {
    table: "jobs",
    column: "reason",
    from: "reason in ('permanent', 'exhausted', 'deadline')",
    to: "reason in ('permanent', 'exhausted', 'deadline', 'cancelled')",
  });
}
