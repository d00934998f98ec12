import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/**
 * The store's seam between portable SQL and what differs per database: the append-only
 * trigger, how a claim locks its candidates, and how a unique violation is recognised. SQLite
 * and (later) PostgreSQL each implement it; services never see dialect-specific SQL.
 */
export interface StoreDialect {
  /** Which engine this is; migrations read it where DDL differs (`bigserial` keys on PostgreSQL). */
  readonly name: "sqlite" | "postgres";
  /** Installs the triggers that make UPDATE of an event, and DELETE of a job's event, fail. */
  createAppendOnlyGuards(db: Kysely<VerqDatabase>): Promise<void>;
  /**
   * Suffix for the claim's candidate SELECT: `for update skip locked` on PostgreSQL; empty on
   * SQLite, where `BEGIN IMMEDIATE` already holds the single write lock.
   */
  readonly claimLockSuffix: string;
  /** True when `error` is a violation of a UNIQUE or PRIMARY KEY constraint. */
  isUniqueViolation(error: unknown): boolean;
  /** True when `error` means "the database is busy or locked, try again". */
  isBusy(error: unknown): boolean;
}
