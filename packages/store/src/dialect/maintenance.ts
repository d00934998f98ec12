import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/** An engine's housekeeping, run on an operator's request. */
export interface Maintenance {
  /** Before the database's files are measured or copied: SQLite moves its WAL into the file and truncates it; PostgreSQL has nothing to do. */
  checkpoint(db: Kysely<VerqDatabase>): Promise<void>;
}
