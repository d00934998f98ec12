import { NOTHING, type MigrationParts } from "../migration-parts.ts";
import { postgresInitial } from "./001-initial.ts";
import { postgresCancellation } from "./007-cancellation.ts";
import { postgresRetention } from "./009-retention.ts";
import { postgresSubscriptions } from "./010-subscriptions.ts";

/** PostgreSQL's parts of the migrations. */
export const postgresMigrationParts: MigrationParts = {
  "001-initial": postgresInitial,
  // A sequence never goes back: nothing to do.
  "005-lean-positions": NOTHING,
  "007-cancellation": postgresCancellation,
  "009-retention": postgresRetention,
  "010-subscriptions": postgresSubscriptions,
  // Its index-only walk reads no fewer pages than a parallel scan of the table, and every job's
  // insert and every move of one writes it: docs/performance.md ("What the counts index costs").
  "015-job-counts-index": NOTHING,
};
