import { sql } from "kysely";
import type { MigrationStep } from "../migration-parts.ts";

/** SQLite's migration 009: the job-delete trigger made again, letting through the events of an archived job. */
export const sqliteRetention: MigrationStep = async (db) => {
  await sql`drop trigger events_jobs_no_delete`.execute(db);
  await sql`create trigger events_jobs_no_delete before delete on events
      when old.stream_type = 'job' and not exists (select 1 from job_archive a where a.id = old.stream_id)
      begin select raise(abort, 'VERQ_APPEND_ONLY: job events cannot be deleted unless the job is archived'); end`.execute(db);
};
