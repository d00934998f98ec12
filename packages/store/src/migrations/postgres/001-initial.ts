import { sql } from "kysely";
import type { InitialPart } from "../migration-parts.ts";

/**
 * PostgreSQL's part of migration 001: a `bigserial` key (a sequence never goes back) and one
 * trigger function that refuses an UPDATE of an event, a TRUNCATE of the log and a DELETE of a
 * job's event.
 */
export const postgresInitial: InitialPart = {
  positionColumnType: "bigserial",
  positionKey: (column) => column.primaryKey(),
  async createAppendOnlyGuards(db) {
    await sql`create function verq_events_append_only() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' then
          raise exception 'VERQ_APPEND_ONLY: events cannot be updated';
        end if;
        if tg_op = 'TRUNCATE' then
          raise exception 'VERQ_APPEND_ONLY: events cannot be truncated';
        end if;
        if old.stream_type = 'job' then
          raise exception 'VERQ_APPEND_ONLY: job events cannot be deleted';
        end if;
        return old;
      end $$`.execute(db);
    await sql`create trigger events_append_only before update or delete on events
      for each row execute function verq_events_append_only()`.execute(db);
    // TRUNCATE skips row triggers: refuse it too.
    await sql`create trigger events_no_truncate before truncate on events
      for each statement execute function verq_events_append_only()`.execute(db);
  },
};
