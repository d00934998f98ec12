import { VerqError } from "@verq/core";

/*
 * What an open refuses before it creates or changes anything: a store that is not there for an
 * open that may not create one (`create: false`), and a service's table where verq's would go.
 * `where` names the store as `VerqStore.path` does (never a password).
 */

/** `VERQ_FILE_NOT_FOUND`: `create: false` and no SQLite file at `path`. */
export function sqliteFileNotFound(path: string): VerqError {
  return new VerqError(
    "VERQ_FILE_NOT_FOUND",
    `no SQLite database at ${path}, and this open may not create one (create: false, as for a command that only reads). Check the path, or create the store with \`verq init --db ${path}\`; nothing was created.`,
  );
}

/** `VERQ_STORE_NOT_INITIALIZED`: `create: false` and a database (or schema) without verq's tables. */
export function storeNotInitialized(where: string): VerqError {
  return new VerqError(
    "VERQ_STORE_NOT_INITIALIZED",
    `no verq store at ${where}: none of verq's tables are there, and this open may not create them (create: false, as for a command that only reads). Check --db, or create the store with \`verq init --db …\` (or a command that writes); nothing was created.`,
  );
}

/** `VERQ_TABLE_CONFLICT`: tables that are not verq's have the names of tables its migrations would create. */
export function tableConflict(tables: readonly string[], where: string): VerqError {
  const which = tables.length === 1 ? `a table named ${tables[0]}` : `tables named ${tables.join(", ")}`;
  return new VerqError(
    "VERQ_TABLE_CONFLICT",
    `cannot create verq's tables at ${where}: it already has ${which}, which verq did not create (see VERQ_TABLES in @verq/store). Rename ${tables.length === 1 ? "it" : "them"}, or give verq a database (a SQLite file, or a PostgreSQL schema) of its own; nothing was created.`,
  );
}
