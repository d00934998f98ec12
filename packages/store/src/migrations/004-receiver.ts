import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/**
 * The idempotent receiver's tables: one receipt per idempotency key (the first answer, kept
 * for replays) and the sample business effect, an inventory of quantities.
 */
export async function up(db: Kysely<VerqDatabase>): Promise<void> {
  await db.schema
    .createTable("receipts")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("response", "text", (c) => c.notNull())
    .addColumn("at_ms", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("inventory")
    .addColumn("item", "text", (c) => c.primaryKey())
    .addColumn("quantity", "bigint", (c) => c.notNull())
    .execute();
}
