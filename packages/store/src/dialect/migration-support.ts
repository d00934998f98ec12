import type { Kysely } from "kysely";
import type { MigrationParts } from "../migrations/migration-parts.ts";
import type { VerqDatabase } from "../schema.ts";

/**
 * What an engine brings to the store's migrations: the lock that makes first opens take turns,
 * where the bookkeeping lives, and its own part of the numbered migrations that differ per
 * engine (written in `migrations/<engine>/`).
 */
export interface MigrationSupport {
  /**
   * Runs the first open's schema work (`work`, with the database to run it on) so that processes
   * opening one fresh database at once take turns: SQLite's migration transaction already takes
   * the write lock; PostgreSQL runs it in one transaction under a transaction advisory lock.
   */
  withMigrationLock<T>(db: Kysely<VerqDatabase>, work: (db: Kysely<VerqDatabase>) => Promise<T>): Promise<T>;
  /**
   * True when {@link withMigrationLock} runs `work` in a transaction of its own: the migrator then
   * opens none (and takes its own lock for that transaction only).
   */
  readonly ownTransaction?: boolean;
  /**
   * The schema that holds the store's migration bookkeeping, read on `db` before migrating:
   * undefined on SQLite (one file, one schema); PostgreSQL's current schema, since other schemas
   * of the same database may hold other verq stores, and their bookkeeping must not be taken
   * for this one's.
   */
  migrationSchema(db: Kysely<VerqDatabase>): Promise<string | undefined>;
  /** The engine's part of each numbered migration that has one. */
  readonly parts: MigrationParts;
}
