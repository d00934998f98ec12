import {
  GUID_STATES,
  decideGuid,
  endsPurgeScan,
  purgeRefusalError,
  guidCommands,
  newGuidEntry,
  type Clock,
  type GuidDecider,
  type GuidEntry,
  type GuidEvent,
  type GuidState,
} from "@verq/core";
import { commitChanges, decideCandidates, type StreamProjection } from "./command-path.ts";
import { selectGuidEntriesOldestFirst, type LedgerCursor } from "./sql/ledger/selectGuidEntries.ts";
import type { VerqStore } from "./store.ts";

/** What a purge did. */
export interface PurgeResult {
  /** DONE entries deleted with their events. */
  readonly purged: number;
  /** Events deleted with them. */
  readonly events: number;
  /** Entries older than the retention that were kept, by state (only DONE is ever purged). */
  readonly kept: Readonly<Record<GuidState, number>>;
}

/** The blank entry a purge command is judged on before any stored entry (never written). */
const PURGE_PROBE = "purge-probe";

/**
 * Asks the guid machine whether a purge with this retention may run at all (SPEC G7: the
 * retention must be longer than the channel's resend window), judged on a blank entry before
 * any store is read; throws `VERQ_PURGE_RETENTION_TOO_SHORT` when it may not. `GuidLedger.purge`
 * asks it first; a caller may ask it before it opens a store, so that a refused purge opens
 * (and creates) nothing, as the CLI does.
 */
export function checkPurgeRetention(
  retentionMs: number,
  resendWindowMs: number,
  now: number,
  decide: GuidDecider = decideGuid,
): void {
  const probe = decide(newGuidEntry(PURGE_PROBE), guidCommands.purge({ retentionMs, resendWindowMs, now }));
  const error = probe.accepted ? null : purgeRefusalError(probe.refusal, retentionMs, resendWindowMs);
  if (error !== null) throw error;
}

/** A purge's settings, checked: whole, non-negative milliseconds, and the entries looked at per batch. */
export interface GuidPurge {
  readonly retentionMs: number;
  readonly resendWindowMs: number;
  readonly batchSize: number;
}

/**
 * The retention purge of the GUID ledger (SPEC G7), in batches of `batchSize` entries, oldest
 * change first, each batch its own transaction: each entry gets one `guid.purge` decided by
 * `decide` (the guid machine), the accepted ones are committed (deleted with their events and
 * audited, see `guidStream`), and the scan stops at the first entry found too young. The
 * retention is judged first, on a blank entry ({@link checkPurgeRetention}).
 */
export async function purgeGuids(
  store: VerqStore,
  decide: GuidDecider,
  stream: StreamProjection<GuidEntry, GuidEvent>,
  clock: Clock,
  { retentionMs, resendWindowMs, batchSize }: GuidPurge,
): Promise<PurgeResult> {
  const kept = Object.fromEntries(GUID_STATES.map((s) => [s, 0])) as Record<GuidState, number>;
  let purged = 0;
  let events = 0;
  let cursor: LedgerCursor | null = null;
  // The machine judges the command before any entry: a retention that does not cover the
  // resend window is refused on an empty ledger too (SPEC G7; bad input gets an error).
  checkPurgeRetention(retentionMs, resendWindowMs, clock.now(), decide);
  for (;;) {
    const batch = await store.transaction(async (trx) => {
      const command = guidCommands.purge({ retentionMs, resendWindowMs, now: clock.now() });
      const candidates = await selectGuidEntriesOldestFirst(trx, batchSize, cursor);
      const { changes, refused, ended } = decideCandidates(decide, candidates, () => [command], { endsScan: endsPurgeScan });
      for (const { refusal } of refused) {
        const error = purgeRefusalError(refusal, retentionMs, resendWindowMs);
        if (error !== null) throw error;
      }
      await commitChanges(trx, store.dialect, stream, changes);
      return { candidates, changes, keptHere: refused.map((r) => r.state.state), young: ended };
    });
    purged += batch.changes.length;
    // The purged streams' stored events: each had as many as its version.
    for (const change of batch.changes) events += change.before.version;
    for (const state of batch.keptHere) kept[state]++;
    const last = batch.candidates.at(-1);
    if (batch.young || last === undefined || batch.candidates.length < batchSize) break;
    cursor = { updatedAt: last.updatedAt, guid: last.guid };
  }
  return { purged, events, kept };
}
