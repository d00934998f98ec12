import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import type { BatchColumnType, StoreDialect } from "./store-dialect.ts";

function sqliteCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

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
