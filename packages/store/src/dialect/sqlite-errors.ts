import { VerqError } from "@verq/core";
import type { ErrorClassifier } from "./error-classifier.ts";

/** The result code of a better-sqlite3 error (`SQLITE_BUSY`, `SQLITE_CORRUPT_INDEX`, …), if `error` is one. */
export function sqliteCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

/** `VERQ_STORE_CORRUPT` for a SQLite file that is damaged or not a database at all; `where` names it when known. */
export function sqliteCorrupt(why: string, cause?: unknown, where?: string): VerqError {
  const file = where === undefined ? "the database file" : `the database file ${where}`;
  return new VerqError(
    "VERQ_STORE_CORRUPT",
    `${file} is damaged (${why}); verq stops rather than read or write it. Restore it from a backup (see docs/faults.md).`,
    cause === undefined ? undefined : { cause },
  );
}

/** What a SQLite error says is wrong with the file (`SQLITE_CORRUPT…`, `SQLITE_NOTADB`), or undefined for any other error. */
export function damageOf(error: unknown): string | undefined {
  const code = sqliteCode(error);
  if (code?.startsWith("SQLITE_CORRUPT")) return "database disk image is malformed";
  if (code === "SQLITE_NOTADB") return "not a SQLite database";
  return undefined;
}

/**
 * The verq error a SQLite error stands for: `SQLITE_FULL` (the disk, or the file's
 * `max_page_count`, has no room; SQLite has undone the statement or the whole transaction) is
 * `VERQ_STORE_FULL`; `SQLITE_CORRUPT` and `SQLITE_NOTADB` are `VERQ_STORE_CORRUPT`. Anything
 * else is undefined: the store's own checks read those codes.
 */
export function sqliteStoreError(error: unknown): VerqError | undefined {
  const code = sqliteCode(error);
  if (code === undefined) return undefined;
  if (code.startsWith("SQLITE_FULL")) {
    return new VerqError(
      "VERQ_STORE_FULL",
      "the database is full: the disk, or the file's size limit, has no room for this write, and nothing of it was kept. Free space and try again.",
      { cause: error },
    );
  }
  const damage = damageOf(error);
  return damage === undefined ? undefined : sqliteCorrupt(damage, error);
}

/** What SQLite's errors mean to the store. */
export const sqliteErrors: ErrorClassifier = {
  isUniqueViolation(error: unknown): boolean {
    const code = sqliteCode(error);
    return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
  },
  isBusy(error: unknown): boolean {
    const code = sqliteCode(error);
    return code !== undefined && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
  },
  // An embedded database has no connection to lose.
  isConnectionLost: () => false,
  isReadOnly: () => false,
  storeError: sqliteStoreError,
};
