import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import { sqliteCode, sqliteStoreError } from "./sqlite-errors.ts";
import type { BatchColumnType, ColumnCheckChange, StoreDialect } from "./store-dialect.ts";

const placeholderCache = new Map<string, string>();

/** The SQLite side of the store's seam. */
export const sqliteStoreDialect: StoreDialect = {
  name: "sqlite",
  positionColumnType: "integer",
  positionKey: (column) => column.primaryKey().autoIncrement(),
  claimLockSuffix: "",
  beforeClaim: () => Promise.resolve(),
  // Well under SQLite's 32,766.
  maxParameters: 32_000,
  async createAppendOnlyGuards(db: Kysely<VerqDatabase>): Promise<void> {
    await sql`create trigger events_append_only_no_update before update on events
      begin select raise(abort, 'VERQ_APPEND_ONLY: events cannot be updated'); end`.execute(db);
    await sql`create trigger events_jobs_no_delete before delete on events when old.stream_type = 'job'
      begin select raise(abort, 'VERQ_APPEND_ONLY: job events cannot be deleted'); end`.execute(db);
  },
  async leanPositions(db: Kysely<VerqDatabase>): Promise<void> {
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
    await this.createAppendOnlyGuards(db);
    await sql`create trigger events_newest_kept before delete on events
      when old.position >= (select max(position) from events)
      begin select raise(abort, 'VERQ_APPEND_ONLY: the newest event cannot be deleted (its position would be handed out again)'); end`.execute(
      db,
    );
  },
  async allowArchivedJobDeletes(db: Kysely<VerqDatabase>): Promise<void> {
    await sql`drop trigger events_jobs_no_delete`.execute(db);
    await sql`create trigger events_jobs_no_delete before delete on events
      when old.stream_type = 'job' and not exists (select 1 from job_archive a where a.id = old.stream_id)
      begin select raise(abort, 'VERQ_APPEND_ONLY: job events cannot be deleted unless the job is archived'); end`.execute(db);
  },
  // One writer, which commits before the next one takes a position: what is visible is settled.
  trackPositions: () => Promise.resolve(),
  markPositions: () => Promise.resolve({ position: Number.MAX_SAFE_INTEGER, fence: null }),
  positionsSettled: () => Promise.resolve(true),
  async replaceColumnCheck(db: Kysely<VerqDatabase>, { table, column, from, to }: ColumnCheckChange): Promise<void> {
    // SQLite's own procedure for a constraint change (create the new table, copy, drop, rename,
    // make the indexes and triggers again), from the table's schema text as it is now, so that
    // columns other migrations added stay.
    const { rows } = await sql<{ type: string; name: string; sql: string | null }>`
      select type, name, sql from sqlite_master where tbl_name = ${table} order by type = 'table' desc`.execute(db);
    const [created, ...dependents] = rows;
    const check = `check (${from})`;
    const text = created?.type === "table" ? created.sql : null;
    if (text === null || text === undefined || text.split(check).length !== 2) {
      throw new Error(`table ${table} has no column check ${check} on ${column} to replace`);
    }
    const rebuilt = `${table}_rebuilt`;
    const definition = text.slice(text.indexOf("("));
    await sql`create table ${sql.id(rebuilt)} ${sql.raw(definition.replace(check, `check (${to})`))}`.execute(db);
    await sql`insert into ${sql.id(rebuilt)} select * from ${sql.table(table)}`.execute(db);
    await sql`drop table ${sql.table(table)}`.execute(db);
    await sql`alter table ${sql.id(rebuilt)} rename to ${sql.id(table)}`.execute(db);
    for (const dependent of dependents) if (dependent.sql !== null) await sql.raw(dependent.sql).execute(db);
  },
  // `(?, ?), (?, ?)`, cached: each batch size has one statement text, which the store's statement cache prepares once.
  batchValues(rows: number, types: readonly BatchColumnType[]): string {
    const key = `${rows}x${types.length}`;
    let text = placeholderCache.get(key);
    if (text === undefined) {
      const row = `(${types.map(() => "?").join(", ")})`;
      text = Array.from({ length: rows }, () => row).join(", ");
      placeholderCache.set(key, text);
    }
    return text;
  },
  isUniqueViolation(error: unknown): boolean {
    const code = sqliteCode(error);
    return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
  },
  isBusy(error: unknown): boolean {
    const code = sqliteCode(error);
    return code !== undefined && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
  },
  storeError: sqliteStoreError,
  // SQLite undoes only the failed statement; the transaction goes on.
  isolated: (_trx, work) => work(),
  async checkpoint(db: Kysely<VerqDatabase>): Promise<void> {
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
  },
  exclusive: () => Promise.resolve(),
  // The migrations run in one BEGIN IMMEDIATE transaction (see sqlite-connection.ts): that is the lock.
  withMigrationLock: (db, work) => work(db),
  migrationSchema: () => Promise.resolve(undefined),
};
