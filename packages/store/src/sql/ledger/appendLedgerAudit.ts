import { LEDGER_AUDIT_ID, LEDGER_AUDIT_STREAM, type LedgerPurged } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { appendEvents } from "../events/appendEvents.ts";

/**
 * Appends one `ledger.purged` event to the audit stream, in the caller's transaction (the one
 * that deletes the streams it names). Its version follows the stream's last; a concurrent
 * purge that appended first makes this one fail with `VERQ_VERSION_CONFLICT` and roll back.
 */
export async function appendLedgerAudit(trx: Kysely<VerqDatabase>, dialect: StoreDialect, event: LedgerPurged): Promise<number> {
  const row = await trx
    .selectFrom("events")
    .select((eb) => eb.fn.max("version").as("version"))
    .where("stream_type", "=", LEDGER_AUDIT_STREAM)
    .where("stream_id", "=", LEDGER_AUDIT_ID)
    .executeTakeFirst();
  const version = Number(row?.version ?? 0);
  const [position] = await appendEvents(trx, dialect, LEDGER_AUDIT_STREAM, LEDGER_AUDIT_ID, version, [event]);
  return position ?? 0;
}
