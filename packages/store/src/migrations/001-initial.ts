import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import type { InitialPart } from "./migration-parts.ts";

/** The event log, the `jobs` and `redrives` projections, and operational counters; `engine` makes the position key and the append-only guards. */
export async function up(db: Kysely<VerqDatabase>, engine: InitialPart): Promise<void> {
  await db.schema
    .createTable("events")
    .addColumn("position", sql.raw(engine.positionColumnType), (c) => engine.positionKey(c))
    .addColumn("stream_type", "text", (c) => c.notNull())
    .addColumn("stream_id", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("at_ms", "bigint", (c) => c.notNull())
    // The only arbiter of races between writers of one stream.
    .addUniqueConstraint("events_stream_version_unique", ["stream_type", "stream_id", "version"])
    .execute();
  await engine.createAppendOnlyGuards(db);

  await db.schema
    .createTable("jobs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull().check(sql`state in ('pending', 'leased', 'done', 'dead')`))
    .addColumn("token", "integer", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("max_attempts", "integer", (c) => c.notNull())
    .addColumn("deadline", "bigint", (c) => c.notNull())
    .addColumn("available_at", "bigint", (c) => c.notNull())
    .addColumn("owner", "text")
    .addColumn("lease_until", "bigint")
    .addColumn("reason", "text", (c) => c.check(sql`reason in ('permanent', 'exhausted', 'deadline')`))
    .addColumn("dead_since", "bigint")
    .addColumn("ordering_key", "text")
    .addColumn("lease_expiries", "integer", (c) => c.notNull())
    .addColumn("enqueued_at", "bigint", (c) => c.notNull())
    .addColumn("enqueue_position", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    // J1: dead always carries a reason, and only dead does.
    .addCheckConstraint("jobs_dead_has_reason", sql`(state = 'dead') = (reason is not null)`)
    .addCheckConstraint("jobs_leased_has_lease", sql`(state = 'leased') = (lease_until is not null)`)
    .execute();
  // Claims read only due work through these partial indexes, so their cost does not grow with
  // the number of done jobs or the length of the event log.
  await db.schema
    .createIndex("jobs_pending_due")
    .on("jobs")
    .columns(["available_at", "enqueue_position"])
    .where(sql.ref("state"), "=", "pending")
    .execute();
  await db.schema
    .createIndex("jobs_leased_expiry")
    .on("jobs")
    .column("lease_until")
    .where(sql.ref("state"), "=", "leased")
    .execute();
  await db.schema.createIndex("jobs_dead_since").on("jobs").column("dead_since").where(sql.ref("state"), "=", "dead").execute();
  await db.schema
    .createIndex("jobs_ordering_group")
    .on("jobs")
    .columns(["ordering_key", "enqueue_position"])
    .where(sql.ref("ordering_key"), "is not", null)
    .execute();

  await db.schema
    .createTable("redrives")
    .addColumn("position", "bigint", (c) => c.primaryKey())
    .addColumn("job_id", "text", (c) => c.notNull())
    .addColumn("previous_token", "integer", (c) => c.notNull())
    .addColumn("at_ms", "bigint", (c) => c.notNull())
    .addColumn("note", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("redrives_at").on("redrives").column("at_ms").execute();

  await db.schema
    .createTable("counters")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("value", "bigint", (c) => c.notNull())
    .execute();
}
