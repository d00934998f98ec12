import { CANCELLED_REASON } from "../007-cancellation.ts";
import type { MigrationStep } from "../migration-parts.ts";
import { replacePostgresColumnCheck } from "./replace-column-check.ts";

/** PostgreSQL's migration 007: the reason check dropped and added again, wider. */
export const postgresCancellation: MigrationStep = (db) => replacePostgresColumnCheck(db, CANCELLED_REASON);
