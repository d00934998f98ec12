import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/**
 * The idempotency ledger (SPEC G1, G2): one row per GUID, the fold of the GUID's `guid` event
 * stream. The GUID is the primary key, so two rows for one GUID are impossible, and the claim
 * is one insert-or-nothing on it (G4). `code` is what a repeat is answered with; only DONE
 * holds a response. Purge deletes DONE rows together with their events (G7), audited in the
 * `ledger-audit` stream.
 */
export async function up(db: Kysely<VerqDatabase>): Promise<void> {
  await db.schema
    .createTable("ledger")
    .addColumn("guid", "text", (c) => c.primaryKey())
    .addColumn("state", "text", (c) => c.notNull().check(sql`state in ('RECEIVED', 'SENT', 'DONE', 'UNKNOWN', 'FAILED')`))
    .addColumn("code", "text", (c) => c.notNull())
    .addColumn("request", "text", (c) => c.notNull())
    .addColumn("response", "text")
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().check(sql`attempts >= 0`))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    // G3: only a definite answer is replayed, and a definite answer is always kept.
    .addCheckConstraint("ledger_done_has_response", sql`(state = 'DONE') = (response is not null)`)
    .execute();
  // Operations read by state and age (resolve: UNKNOWN, reprocess: FAILED, sweep: RECEIVED and
  // SENT) and purge reads by age; neither scan grows with the number of DONE rows in other states.
  await db.schema.createIndex("ledger_state_updated").on("ledger").columns(["state", "updated_at", "guid"]).execute();
  await db.schema.createIndex("ledger_updated").on("ledger").columns(["updated_at", "guid"]).execute();
}
