import { sql } from "kysely";
import type { MigrationStep } from "../migration-parts.ts";
import { sqliteInitial } from "./001-initial.ts";

/**
 * SQLite's migration 005: `events` rebuilt with a plain rowid key instead of `AUTOINCREMENT`
 * (whose counter row every append rewrote), and a trigger that refuses to delete the newest
 * event, so `max(position) + 1` never hands out a position that was seen before.
 */
export const sqliteLeanPositions: MigrationStep = async (db) => {
  // SQLite cannot drop AUTOINCREMENT from a column: the table is rebuilt, in the migration's
  // transaction, with the same columns, constraint and positions (dropping the old table
  // drops its triggers, which are made again below).
  await sql`create table events_lean (
      position integer primary key,
      stream_type text not null,
      stream_id text not null,
      version integer not null,
      type text not null,
      data text not null,
      at_ms bigint not null,
      constraint events_stream_version_unique unique (stream_type, stream_id, version))`.execute(db);
  await sql`insert into events_lean (position, stream_type, stream_id, version, type, data, at_ms)
      select position, stream_type, stream_id, version, type, data, at_ms from events order by position`.execute(db);
  // The AUTOINCREMENT counter may stand above the newest event (events deleted behind verq's
  // back): a marker event at that position keeps `max(position)` where the counter was.
  await sql`insert into events_lean (position, stream_type, stream_id, version, type, data, at_ms)
      select seq, 'store', 'positions', 1, 'store.positionsKept', json_object('position', seq), cast(unixepoch('subsec') * 1000 as integer)
      from sqlite_sequence where name = 'events' and seq > (select coalesce(max(position), 0) from events)`.execute(db);
  await sql`drop table events`.execute(db);
  await sql`alter table events_lean rename to events`.execute(db);
  await sqliteInitial.createAppendOnlyGuards(db);
  await sql`create trigger events_newest_kept before delete on events
      when old.position >= (select max(position) from events)
      begin select raise(abort, 'VERQ_APPEND_ONLY: the newest event cannot be deleted (its position would be handed out again)'); end`.execute(
    db,
  );
};
