import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import type { MigrationStep } from "./migration-parts.ts";

/**
 * Retention of finished jobs: `job_archive` keeps one row per pruned job (its id, final state,
 * last token, dead reason and times) once its stream and `jobs` row are deleted, so that an old
 * id stays recognisable and an enqueue of it is refused. The append-only trigger now lets the
 * events of an archived job be deleted, and only those (the engine's part). Finished jobs are
 * picked for a prune by age through `jobs_updated`.
 */
export async function up(db: Kysely<VerqDatabase>, engine: MigrationStep): Promise<void> {
  await db.schema
    .createTable("job_archive")
    .addColumn("id", "text", (c) => c.primaryKey())
    // No CHECK on the state: the job machine decides what is pruned, and the check audits it.
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("token", "integer", (c) => c.notNull())
    .addColumn("reason", "text")
    .addColumn("enqueued_at", "bigint", (c) => c.notNull())
    .addColumn("finished_at", "bigint", (c) => c.notNull())
    .addColumn("pruned_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("job_archive_pruned_at").on("job_archive").column("pruned_at").execute();
  await db.schema.createIndex("jobs_updated").on("jobs").columns(["updated_at", "id"]).execute();
  await engine(db);
}
