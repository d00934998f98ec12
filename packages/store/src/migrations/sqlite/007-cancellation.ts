import { CANCELLED_REASON } from "../007-cancellation.ts";
import type { MigrationStep } from "../migration-parts.ts";
import { replaceSqliteColumnCheck } from "./replace-column-check.ts";

/** SQLite's migration 007: `jobs` rebuilt with the wider reason check. */
export const sqliteCancellation: MigrationStep = (db) => replaceSqliteColumnCheck(db, CANCELLED_REASON);
