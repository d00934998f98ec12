/**
 * How an embedded SQLite store is opened. Every field is optional; the defaults (WAL,
 * `synchronous = normal`) keep every committed transaction across a crash or restart of the
 * process, though not across a power loss (SPEC J9).
 */
export interface SqliteOptions {
  /** `wal` (default, chosen by measurement: see the README) or the rollback journal `delete`. */
  readonly journalMode?: "wal" | "delete";
  /** `normal` (default with WAL: durable across process crashes) or `full` (also across power loss). */
  readonly synchronous?: "normal" | "full";
  /** How long a writer waits for another process's lock before `VERQ_STORE_BUSY`, in ms (default 5 000). */
  readonly busyTimeoutMs?: number;
}
