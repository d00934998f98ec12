import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/**
 * Streams a service declares, and versioned events:
 * - `events.schema_version`: the version of the event's shape it was written with. Every event
 *   before this one, and every event of verq's own streams, is version 1 (the default): a new
 *   shape gets a new version and an upcaster, and the log is never rewritten.
 * - `stream_states`: the generic projection of declared streams, one row per stream (its
 *   machine state, version, holder token when it declares fencing, and its folded state as JSON),
 *   written in the transaction of its events.
 */
export async function up(db: Kysely<VerqDatabase>): Promise<void> {
  await sql`alter table events add column schema_version integer not null default 1`.execute(db);
  await db.schema
    .createTable("stream_states")
    .addColumn("stream_type", "text", (c) => c.notNull())
    .addColumn("stream_id", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("token", "bigint")
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("stream_states_pk", ["stream_type", "stream_id"])
    .execute();
  await sql`create index stream_states_by_state on stream_states (stream_type, state, stream_id)`.execute(db);
  // The most recently changed streams of a type (the dashboard's list).
  await sql`create index stream_states_by_update on stream_states (stream_type, updated_at)`.execute(db);
}
