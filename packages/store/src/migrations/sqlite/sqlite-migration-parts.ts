import { NOTHING, type MigrationParts } from "../migration-parts.ts";
import { sqliteInitial } from "./001-initial.ts";
import { sqliteLeanPositions } from "./005-lean-positions.ts";
import { sqliteCancellation } from "./007-cancellation.ts";
import { sqliteRetention } from "./009-retention.ts";
import { createJobCountsIndex } from "../015-job-counts-index.ts";

/** SQLite's parts of the migrations. */
export const sqliteMigrationParts: MigrationParts = {
  "001-initial": sqliteInitial,
  "005-lean-positions": sqliteLeanPositions,
  "007-cancellation": sqliteCancellation,
  "009-retention": sqliteRetention,
  // One writer, which commits before the next one takes a position: what is visible is settled.
  "010-subscriptions": NOTHING,
  "015-job-counts-index": createJobCountsIndex,
};
