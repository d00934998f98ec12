import { sql } from "kysely";
import type { MigrationStep } from "../migration-parts.ts";

/** PostgreSQL's migration 009: the append-only function lets through the events of an archived job. */
export const postgresRetention: MigrationStep = async (db) => {
  // The archive is looked up in the store's schema, whatever the deleting session's search path.
  await sql`create or replace function verq_events_append_only() returns trigger language plpgsql
      set search_path from current as $$
      begin
        if tg_op = 'UPDATE' then
          raise exception 'VERQ_APPEND_ONLY: events cannot be updated';
        end if;
        if tg_op = 'TRUNCATE' then
          raise exception 'VERQ_APPEND_ONLY: events cannot be truncated';
        end if;
        if old.stream_type = 'job' and not exists (select 1 from job_archive a where a.id = old.stream_id) then
          raise exception 'VERQ_APPEND_ONLY: job events cannot be deleted unless the job is archived';
        end if;
        return old;
      end $$`.execute(db);
};
