/** How long, by default, a writer waits for another process's lock before `VERQ_STORE_BUSY`: 5 s. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/**
 * How an embedded SQLite store is opened. Every field is optional; the defaults (WAL,
 * `synchronous = normal`) keep every committed transaction across a crash or restart of the
 * process, though not across a power loss (SPEC J9).
 */
export interface SqliteOptions {
  /** `wal` (default, chosen by measurement: see docs/operations.md#journal-mode) or the rollback journal `delete`. */
  readonly journalMode?: "wal" | "delete";
  /** `normal` (default with WAL: durable across process crashes) or `full` (also across power loss). */
  readonly synchronous?: "normal" | "full";
  /**
   * The wait limit: how long an operation waits, in all, for a write lock another process holds
   * before it fails with `VERQ_STORE_BUSY` and nothing of it written, in ms (default 5 000). The
   * retries of a transaction that meets the lock fit in it, except its second try, which always
   * comes (at most about twice the limit in all; see `retryWhenBusy`); opening a store waits as long.
   */
  readonly busyTimeoutMs?: number;
  /**
   * Runs SQLite's `PRAGMA quick_check` when the store opens, so that a file damaged inside its
   * pages is refused at once with `VERQ_STORE_CORRUPT` rather than when verq first reads the
   * damaged page. Off by default: it reads every page (measured: 250 to 290 ms for a file of
   * 100,000 events, 48 MB, against 32 ms for the whole open), so its cost grows with the file.
   * The header, the schema and the file's length are checked at every open.
   */
  readonly quickCheck?: boolean;
}
