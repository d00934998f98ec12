import type { ColumnDefinitionBuilder, Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/** One engine's part of a numbered migration, run in that migration's transaction. */
export type MigrationStep = (db: Kysely<VerqDatabase>) => Promise<void>;

/** The engine's part of migration 001: the event log's position column and its append-only guards. */
export interface InitialPart {
  /** The column type of the event log's global position (`integer` on SQLite, `bigserial` on PostgreSQL). */
  readonly positionColumnType: string;
  /** Makes the position column the table's key, assigned by the database on insert. */
  positionKey(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /** Installs the triggers that make UPDATE of an event, and DELETE of a job's event, fail. */
  createAppendOnlyGuards: MigrationStep;
}

/**
 * What each engine writes of the numbered migrations that differ per engine, by migration name;
 * the migrations that are the same everywhere have no entry. A new engine provides every entry
 * (an engine with nothing to do for one provides a step that does nothing); a new migration
 * that differs per engine adds its entry here, and each engine its file under
 * `migrations/<engine>/`. Never change an entry that has shipped.
 */
export interface MigrationParts {
  readonly "001-initial": InitialPart;
  /** Positions that cost nothing beyond the row. */
  readonly "005-lean-positions": MigrationStep;
  /** The `jobs.reason` check admits `cancelled` (see `CANCELLED_REASON`). */
  readonly "007-cancellation": MigrationStep;
  /** The job events of an archived job may be deleted (retention). */
  readonly "009-retention": MigrationStep;
  /** What the event positions need for a reader never to skip an event that commits late. */
  readonly "010-subscriptions": MigrationStep;
  /** The index the job counts are read from, where reading it beats reading the table. */
  readonly "015-job-counts-index": MigrationStep;
}

/** No part for this engine in that migration. */
export const NOTHING: MigrationStep = () => Promise.resolve();
