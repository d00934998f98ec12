import { GUID_STREAM, evolveGuid, newGuidEntry, type GuidEntry, type GuidEvent, type GuidEventType } from "@verq/core";
import { selectRowsByKeys } from "../sql/check/selectRowsByKeys.ts";
import { selectRowsWithoutStream } from "../sql/check/selectRowsWithoutStream.ts";
import { rowToEntry, type LedgerRow } from "../sql/ledger/ledgerRow.ts";
import { streamName } from "./finding.ts";
import { describeDifferences, eachPage, evolveOrReport, type StreamTypeCheck } from "./stream-check.ts";

/** One GUID stream folded so far. */
export interface GuidStreamAudit {
  readonly guid: string;
  entry: GuidEntry;
  broken: boolean;
}

// `guid.purged` is decided and deleted with its stream in one transaction: never found stored.
const STORED_TYPES: readonly GuidEventType[] = ["guid.received", "guid.sent", "guid.done", "guid.unknown", "guid.failed"];
const ENTRY_FIELDS = [
  "state",
  "code",
  "request",
  "response",
  "fingerprint",
  "attempts",
  "createdAt",
  "updatedAt",
  "version",
] as const;
const HIDDEN = ["request", "response", "fingerprint"];

/**
 * GUID streams: the fold with `evolveGuid` (what the store projects `ledger` with) against each
 * `ledger` row. A row whose GUID has no events left was deleted behind the purge: when the row
 * is not DONE (UNKNOWN, FAILED, or still in flight) that is `PURGED_UNRESOLVED`, since the purge
 * deletes only DONE entries and always their row with their events.
 */
export const guidCheck: StreamTypeCheck<GuidStreamAudit> = {
  streamType: GUID_STREAM,
  begin: (guid) => ({ guid, entry: newGuidEntry(guid), broken: false }),

  step(s, stored, report) {
    if (s.broken) return;
    const name = streamName(GUID_STREAM, s.guid);
    if (!(STORED_TYPES as readonly string[]).includes(stored.type)) {
      report(
        "EVENT_INVALID",
        name,
        `v${stored.version} has the type ${JSON.stringify(stored.type)}, never stored in a GUID's stream`,
      );
      s.broken = true;
      return;
    }
    const event = { type: stored.type, data: stored.data } as GuidEvent;
    const entry = evolveOrReport(evolveGuid, s.entry, event, stored, name, report);
    if (entry === undefined) s.broken = true;
    else s.entry = entry;
  },

  async settle(db, streams, report) {
    const rows = new Map(
      (
        await selectRowsByKeys<LedgerRow>(
          db,
          "ledger",
          "guid",
          streams.map((s) => s.guid),
        )
      ).map((r) => [r.guid, r]),
    );
    for (const s of streams) {
      if (s.broken || s.entry.state === "NEW") continue;
      const name = streamName(GUID_STREAM, s.guid);
      const row = rows.get(s.guid);
      if (row === undefined) {
        report("PROJECTION_MISSING", name, `no ledger row for a stream of ${s.entry.version} events`);
        continue;
      }
      const differences = describeDifferences(rowToEntry(row), s.entry, ENTRY_FIELDS, HIDDEN);
      if (differences.length > 0) report("PROJECTION_MISMATCH", name, `ledger row: ${differences.join(", ")}`);
    }
  },

  async orphans(db, batchSize, report) {
    await eachPage(
      batchSize,
      (after, limit) => selectRowsWithoutStream<LedgerRow>(db, "ledger", "guid", GUID_STREAM, after, limit),
      (row) => row.guid,
      (row) =>
        row.state === "DONE"
          ? report("PROJECTION_ORPHAN", streamName(GUID_STREAM, row.guid), "ledger row (DONE) without events")
          : report(
              "PURGED_UNRESOLVED",
              streamName(GUID_STREAM, row.guid),
              `ledger row says ${row.state} (${row.code}) but its events are gone; only DONE entries may be purged`,
            ),
    );
  },
};
