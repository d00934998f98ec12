import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/**
 * The idempotent receiver's table: one receipt per idempotency key (the first answer, kept for
 * replays). The business effect's own tables belong to the service that registers the receiver.
 */
export async function up(db: Kysely<VerqDatabase>): Promise<void> {
  await db.schema
    .createTable("receipts")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("response", "text", (c) => c.notNull())
    .addColumn("at_ms", "bigint", (c) => c.notNull())
    .execute();
}
