import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/**
 * Job kinds and recorded failures:
 * - `jobs.kind`: the kind a job was enqueued with, `null` for every job written before (its
 *   `job.enqueued` names none);
 * - `jobs.last_failure`: the job's last failure (JSON of identifiers only), `null` for every job
 *   written before, as the fold of its events says (no event before this one carried a failure).
 */
export async function up(db: Kysely<VerqDatabase>): Promise<void> {
  await sql`alter table jobs add column kind text`.execute(db);
  await sql`alter table jobs add column last_failure text`.execute(db);
}
