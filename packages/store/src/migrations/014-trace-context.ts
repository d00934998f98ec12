import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/**
 * Trace contexts: `jobs.trace_context`, the W3C trace context the job was enqueued in (JSON of
 * its `traceparent` and `tracestate`), `null` for a job enqueued outside any trace and for every
 * job written before, as the fold of its events says (no `job.enqueued` before this one carried
 * one).
 */
export async function up(db: Kysely<VerqDatabase>): Promise<void> {
  await sql`alter table jobs add column trace_context text`.execute(db);
}
