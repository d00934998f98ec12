import { sql } from "kysely";
import type { InitialPart } from "../migration-parts.ts";

/**
 * SQLite's part of migration 001: an `AUTOINCREMENT` key (replaced by a plain rowid key in 005)
 * and triggers that abort an UPDATE of an event and a DELETE of a job's event.
 */
export const sqliteInitial: InitialPart = {
  positionColumnType: "integer",
  positionKey: (column) => column.primaryKey().autoIncrement(),
  async createAppendOnlyGuards(db) {
    await sql`create trigger events_append_only_no_update before update on events
      begin select raise(abort, 'VERQ_APPEND_ONLY: events cannot be updated'); end`.execute(db);
    await sql`create trigger events_jobs_no_delete before delete on events when old.stream_type = 'job'
      begin select raise(abort, 'VERQ_APPEND_ONLY: job events cannot be deleted'); end`.execute(db);
  },
};
