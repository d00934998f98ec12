import type { ErrorClassifier } from "./error-classifier.ts";
import type { EventPositions } from "./event-positions.ts";
import type { Maintenance } from "./maintenance.ts";
import type { MigrationSupport } from "./migration-support.ts";
import type { Statements } from "./statements.ts";
import type { Wakeups } from "./wakeups.ts";

/**
 * The store's seam between portable SQL and what differs per database: one object per store,
 * made of the capabilities every engine must provide. Shared SQL never asks which engine it
 * runs on; services never see engine-specific SQL. An engine is written against the dialect
 * contract suite (`packages/store/test/dialect/dialect-contract.ts`).
 */
export interface StoreDialect {
  /** Which engine this is, for messages and diagnostics only (a new engine adds its name); no SQL is chosen by it. */
  readonly name: "sqlite" | "postgres";
  /** Running statements and transactions. */
  readonly statements: Statements;
  /** What the engine's errors mean. */
  readonly errors: ErrorClassifier;
  /** When a reader of the event log may move past a position. */
  readonly positions: EventPositions;
  /** Waking the idle workers that share the store, in this process and in others. */
  readonly wakeups: Wakeups;
  /** Housekeeping. */
  readonly maintenance: Maintenance;
  /** The migration lock, where the bookkeeping lives, and the engine's parts of the migrations. */
  readonly migrations: MigrationSupport;
}
