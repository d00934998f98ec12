import { LEDGER_AUDIT_ID, LEDGER_AUDIT_STREAM, type LedgerPurged } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { readStream } from "../events/readStream.ts";
import type { StoredEvent } from "../events/storedEvent.ts";

/** The purge audit trail, oldest first. */
export async function readLedgerAudit(db: Kysely<VerqDatabase>): Promise<StoredEvent<LedgerPurged["data"]>[]> {
  return (await readStream(db, LEDGER_AUDIT_STREAM, LEDGER_AUDIT_ID)) as StoredEvent<LedgerPurged["data"]>[];
}
