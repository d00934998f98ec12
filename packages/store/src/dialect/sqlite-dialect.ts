import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import type { StoreDialect } from "./store-dialect.ts";

function sqliteCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

/** The SQLite side of the store's seam. */
export const sqliteStoreDialect: StoreDialect = {
  name: "sqlite",
  claimLockSuffix: "",
  async createAppendOnlyGuards(db: Kysely<VerqDatabase>): Promise<void> {
    await sql`create trigger events_append_only_no_update before update on events
      begin select raise(abort, 'VERQ_APPEND_ONLY: events cannot be updated'); end`.execute(db);
    await sql`create trigger events_jobs_no_delete before delete on events when old.stream_type = 'job'
      begin select raise(abort, 'VERQ_APPEND_ONLY: job events cannot be deleted'); end`.execute(db);
  },
  isUniqueViolation(error: unknown): boolean {
    const code = sqliteCode(error);
    return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
  },
  isBusy(error: unknown): boolean {
    const code = sqliteCode(error);
    return code !== undefined && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
  },
};
