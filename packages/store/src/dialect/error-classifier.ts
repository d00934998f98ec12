import type { VerqError } from "@verq/core";

/** What an engine's errors mean to the store: a duplicate key, a transaction to run again, or a store fault. */
export interface ErrorClassifier {
  /** True when `error` is a violation of a UNIQUE or PRIMARY KEY constraint. */
  isUniqueViolation(error: unknown): boolean;
  /**
   * True when `error` means "run the transaction again from the start": the database is busy or
   * locked (SQLite), or a serialization failure, a deadlock, or a version conflict with a
   * transaction that committed meanwhile (PostgreSQL, where several writers run at once).
   */
  isBusy(error: unknown): boolean;
  /**
   * True when `error` means the connection to the server broke, could not be made, or reaches a
   * server that cannot write (a replica after a failover). What became of the work under way
   * depends on where it broke (see `VerqStore.transaction`); never true on SQLite.
   */
  isConnectionLost(error: unknown): boolean;
  /** True when `error` is a write refused by a server that takes none (a replica); never true on SQLite. */
  isReadOnly(error: unknown): boolean;
  /**
   * The verq error a database error stands for, which every statement of the store throws in
   * its place: no room left (SQLite's `SQLITE_FULL`, PostgreSQL's SQLSTATE 53100 `disk_full`) is
   * `VERQ_STORE_FULL`; a damaged SQLite file (`SQLITE_CORRUPT`, `SQLITE_NOTADB`) is
   * `VERQ_STORE_CORRUPT`. Undefined for every other error, which passes through as it is (so
   * that {@link isBusy} and {@link isUniqueViolation} still see the engine's codes).
   */
  storeError(error: unknown): VerqError | undefined;
}
