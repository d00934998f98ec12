import { isVerqError, VerqError } from "@verq/core";
import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import { markPostgresPositions, postgresPositionsSettled, trackPostgresPositions } from "./postgres-positions.ts";
import type { BatchColumnType, ColumnCheckChange, StoreDialect } from "./store-dialect.ts";

/** The SQLSTATE of a PostgreSQL error, if `error` is one. */
export function postgresCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * The verq error a PostgreSQL error stands for: SQLSTATE 53100 (`disk_full`: the server could not
 * extend a file; the statement failed and its transaction is rolled back) is `VERQ_STORE_FULL`.
 */
export function postgresStoreError(error: unknown): VerqError | undefined {
  if (postgresCode(error) !== "53100") return undefined;
  return new VerqError(
    "VERQ_STORE_FULL",
    "PostgreSQL has no disk space left for this write (SQLSTATE 53100), and nothing of it was kept. Free space on the server and try again.",
    { cause: error },
  );
}

/**
 * SQLSTATEs after which the whole transaction is run again: serialization failure, deadlock
 * detected, lock not available.
 */
const RETRYABLE = new Set(["40001", "40P01", "55P03"]);

/** The advisory lock key of verq's migrations: "verq" in ASCII. */
const MIGRATION_LOCK_KEY = 0x76657271;

const placeholderCache = new Map<string, string>();

/** The PostgreSQL side of the store's seam. */
export const postgresStoreDialect: StoreDialect = {
  name: "postgres",
  positionColumnType: "bigserial",
  positionKey: (column) => column.primaryKey(),
  claimLockSuffix: "for update skip locked",
  async beforeClaim(trx: Kysely<VerqDatabase>): Promise<void> {
    await sql`set local enable_sort = off`.execute(trx);
  },
  // PostgreSQL binds at most 65,535 parameters a statement.
  maxParameters: 60_000,
  async createAppendOnlyGuards(db: Kysely<VerqDatabase>): Promise<void> {
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
  // A sequence never goes back: nothing to do.
  leanPositions: () => Promise.resolve(),
  async allowArchivedJobDeletes(db: Kysely<VerqDatabase>): Promise<void> {
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
  },
  trackPositions: trackPostgresPositions,
  markPositions: markPostgresPositions,
  positionsSettled: postgresPositionsSettled,
  async replaceColumnCheck(db: Kysely<VerqDatabase>, { table, column, to }: ColumnCheckChange): Promise<void> {
    const name = sql.id(`${table}_${column}_check`);
    await sql`alter table ${sql.table(table)} drop constraint ${name}, add constraint ${name} check (${sql.raw(to)})`.execute(db);
  },
  // `($1::text, $2::bigint), ($3::text, $4::bigint)`: typed, since an untyped VALUES column is text.
  batchValues(rows: number, types: readonly BatchColumnType[]): string {
    const key = `${rows}x${types.join(",")}`;
    let text = placeholderCache.get(key);
    if (text === undefined) {
      const parts: string[] = [];
      let n = 0;
      for (let r = 0; r < rows; r++) parts.push(`(${types.map((t) => `$${++n}::${t}`).join(", ")})`);
      text = parts.join(", ");
      if (placeholderCache.size > 1_000) placeholderCache.clear();
      placeholderCache.set(key, text);
    }
    return text;
  },
  isUniqueViolation: (error) => postgresCode(error) === "23505",
  storeError: postgresStoreError,
  isBusy(error: unknown): boolean {
    const code = postgresCode(error);
    // Several writers run at once here: a stream another transaction moved meanwhile is decided again.
    return (code !== undefined && RETRYABLE.has(code)) || isVerqError(error, "VERQ_VERSION_CONFLICT");
  },
  // A failed statement aborts a PostgreSQL transaction; a savepoint keeps the rest of it.
  async isolated<T>(trx: Kysely<VerqDatabase>, work: () => Promise<T>): Promise<T> {
    await sql`savepoint verq_isolated`.execute(trx);
    try {
      const result = await work();
      await sql`release savepoint verq_isolated`.execute(trx);
      return result;
    } catch (error) {
      await sql`rollback to savepoint verq_isolated`.execute(trx);
      throw error;
    }
  },
  checkpoint: () => Promise.resolve(),
  async exclusive(trx: Kysely<VerqDatabase>, topic: string): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtext(${topic}))`.execute(trx);
  },
  // One session-level advisory lock for the whole first open: the schema, Kysely's migration
  // tables and the migrations themselves, so that processes opening one fresh database at once
  // wait for each other instead of racing on CREATE.
  async withMigrationLock<T>(db: Kysely<VerqDatabase>, work: (db: Kysely<VerqDatabase>) => Promise<T>): Promise<T> {
    return db.connection().execute(async (connection) => {
      await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(connection);
      try {
        return await work(connection);
      } finally {
        await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(connection);
      }
    });
  },
  // Kysely's migrator finds its tables in any schema it can see unless told which: without this,
  // a fresh store would take another schema's verq_migrations for its own and never create them.
  async migrationSchema(db: Kysely<VerqDatabase>): Promise<string | undefined> {
    const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
    const schema = rows[0]?.schema ?? null;
    // No schema of the search path exists: say so, rather than fail later on a missing table.
    if (schema === null) throw Object.assign(new Error("no schema of the search path exists"), { code: "3F000" });
    return schema;
  },
};
