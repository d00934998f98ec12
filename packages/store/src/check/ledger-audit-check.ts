import { GUID_STREAM, LEDGER_AUDIT_STREAM, type LedgerPurged } from "@verq/core";
import { selectEventsBefore } from "../sql/check/selectEventsBefore.ts";
import { streamName } from "./finding.ts";
import type { StreamTypeCheck } from "./stream-check.ts";

const GUIDS_PER_LOOKUP = 1_000;

interface PurgeRecord {
  readonly version: number;
  readonly position: number;
  readonly guids: readonly string[];
}

/** The purge audit stream read so far: the purges whose GUIDs are still to be looked up. */
export interface LedgerAuditStreamAudit {
  readonly id: string;
  pending: PurgeRecord[];
}

/**
 * The ledger's purge audit (`ledger-audit/purges`): every event a `ledger.purged`, and every GUID
 * it lists gone from the log up to it. The purge appends the audit event and deletes the
 * streams it names in one transaction, so an event of such a GUID below the audit's position
 * is a stream the purge left behind (`PURGE_INCOMPLETE`); a GUID claimed again after the purge
 * has a new stream above it, which is fine.
 */
export const ledgerAuditCheck: StreamTypeCheck<LedgerAuditStreamAudit> = {
  streamType: LEDGER_AUDIT_STREAM,
  begin: (id) => ({ id, pending: [] }),

  step(s, stored, report) {
    if (stored.type !== "ledger.purged") {
      report(
        "EVENT_INVALID",
        streamName(LEDGER_AUDIT_STREAM, s.id),
        `v${stored.version} has the type ${JSON.stringify(stored.type)}, not ledger.purged`,
      );
      return;
    }
    const guids = (stored.data as Partial<LedgerPurged["data"]>).guids;
    s.pending.push({ version: stored.version, position: stored.position, guids: Array.isArray(guids) ? guids : [] });
  },

  async drain(db, s, report) {
    const pending = s.pending;
    s.pending = [];
    for (const purge of pending) {
      // A purge batch may list more GUIDs than one statement binds on every engine: looked up in slices.
      const left = [];
      for (let from = 0; from < purge.guids.length; from += GUIDS_PER_LOOKUP)
        left.push(
          ...(await selectEventsBefore(db, GUID_STREAM, purge.guids.slice(from, from + GUIDS_PER_LOOKUP), purge.position)),
        );
      for (const stream of left) {
        report(
          "PURGE_INCOMPLETE",
          streamName(GUID_STREAM, stream.streamId),
          `purged by ${LEDGER_AUDIT_STREAM} v${purge.version} (position ${purge.position}) but ${stream.count} of its events from before the purge remain`,
        );
      }
    }
  },

  settle: () => Promise.resolve(),
  orphans: () => Promise.resolve(),
};
