/**
 * How a PostgreSQL store is opened. Every field is optional but the connection string.
 */
export interface PostgresOptions {
  /** `postgres://user:password@host:port/database` (also `postgresql://`), with any libpq parameters it takes. */
  readonly url: string;
  /**
   * The schema that holds verq's tables (default: the connection's own search path, usually
   * `public`). Created on first open when missing (never by an open with `create: false`).
   * Letters, digits and `_` only.
   */
  readonly schema?: string;
  /** Connections in the pool (default 10). Each in-flight transaction holds one. */
  readonly poolSize?: number;
  /** How long to wait for a connection before `VERQ_STORE_UNREACHABLE`, in ms (default 10 000). */
  readonly connectTimeoutMs?: number;
  /**
   * Whether the job hot path's statements run as named prepared statements, parsed and planned
   * once per connection (default `true`). Each has one text whatever its batch size. Set `false`
   * behind a connection pooler that hands each transaction another server connection (PgBouncer
   * in transaction mode without `max_prepared_statements`), where a statement prepared on one
   * connection is unknown on the next: the same texts then run unnamed, planned on every run.
   */
  readonly preparedStatements?: boolean;
  /**
   * How long a call goes on trying after the connection to the server was lost, in ms (default
   * 30 000: a failover takes seconds to tens of seconds). A transaction cut before its COMMIT
   * runs again once a connection can be had; one whose COMMIT was cut is settled from the log
   * (see `VerqStore.transaction`). Past this, `VERQ_STORE_UNREACHABLE` with nothing written.
   */
  readonly reconnectMs?: number;
  /**
   * Where the wake-ups listen (one connection that LISTENs, opened by the first idle worker): by
   * default `url` itself. Behind a pooler in transaction mode, whose connections cannot LISTEN
   * (PgBouncer accepts it and never delivers), give a URL that reaches the primary past the
   * pooler, or `null` to listen nowhere: workers then learn of other processes' jobs by polling
   * (every `idleMs`), and of their own process's at once.
   */
  readonly listenUrl?: string | null;
}
