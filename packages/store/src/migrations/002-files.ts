import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/**
 * The file queue's tables (SPEC F3–F6):
 * - `processed`: one row per recorded message. `msg_id` is the PRIMARY KEY, so a duplicate
 *   message is stopped by the database, never by an application check. The columns carry the
 *   course's names; under another profile they hold the values of the fields with the roles
 *   idempotency key (`msg_id`), group (`order_no`), sequence (`seq`) and amount (`amount`,
 *   nullable), and `message` holds the whole message (docs/adr/0003-file-queue-profile.md).
 * - `message_duplicates`: each message stopped by that key, with its file.
 * - `messages`: the projection of the `message` event streams, one row per file's life.
 */
export async function up(db: Kysely<VerqDatabase>): Promise<void> {
  await db.schema
    .createTable("processed")
    .addColumn("msg_id", "text", (c) => c.primaryKey())
    .addColumn("order_no", "text", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("amount", "numeric")
    .addColumn("processed_at", "bigint", (c) => c.notNull())
    .addColumn("file", "text", (c) => c.notNull())
    .addColumn("message_id", "text", (c) => c.notNull())
    .addColumn("message", "text", (c) => c.notNull())
    .execute();
  // The order check (F6) reads by group and stored sequence number, never by processing time.
  await db.schema.createIndex("processed_order_seq").on("processed").columns(["order_no", "seq"]).execute();

  await db.schema
    .createTable("message_duplicates")
    .addColumn("message_id", "text", (c) => c.primaryKey())
    .addColumn("msg_id", "text", (c) => c.notNull())
    .addColumn("file", "text", (c) => c.notNull())
    .addColumn("at_ms", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("message_duplicates_msg_id").on("message_duplicates").column("msg_id").execute();

  await db.schema
    .createTable("messages")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("file", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull().check(sql`state in ('inbox', 'processing', 'done', 'error')`))
    .addColumn("claim_id", "text")
    .addColumn("owner", "text")
    .addColumn("claims", "integer", (c) => c.notNull())
    .addColumn("reason", "text", (c) =>
      c.check(sql`reason in ('parse', 'too-large', 'missing-field', 'invalid-field', 'handler')`),
    )
    .addColumn("detail", "text")
    .addColumn("msg_key", "text")
    .addColumn("outcome", "text", (c) => c.check(sql`outcome in ('recorded', 'duplicate')`))
    .addColumn("replays", "integer", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    // F2/F5: a message in error always says why, and only one in error does.
    .addCheckConstraint("messages_error_has_reason", sql`(state = 'error') = (reason is not null)`)
    .execute();
  // A claim id names one claim: recovery finds what a dead consumer's claim got to by it.
  await db.schema.createIndex("messages_claim_id").unique().on("messages").column("claim_id").execute();
  // A file back in the inbox continues its stream: found by name among messages in inbox or error.
  await db.schema
    .createIndex("messages_open_file")
    .on("messages")
    .columns(["file", "updated_at"])
    .where(sql<boolean>`state in ('inbox', 'error')`)
    .execute();
}
