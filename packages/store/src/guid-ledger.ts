import {
  GUID_STATES,
  GUID_STREAM,
  GuidError,
  VerqError,
  checkMaxAttempts,
  decideGuid,
  evolveGuid,
  guidCommands,
  guidEvents,
  isValidGuid,
  retentionCoversResendWindow,
  systemClock,
  type Clock,
  type CoreOutcome,
  type GuidCommand,
  type GuidDecider,
  type GuidRefusal,
  type GuidState,
  type InquiryAnswer,
  type LedgerEntry,
} from "@verq/core";
import type { VerqStore } from "./store.ts";
import { seamsOf, type GuidClaimer, type GuidLedgerSeams } from "./seams.ts";
import { claimGuid } from "./sql/ledger/claimGuid.ts";
import { commitGuidEvents } from "./sql/ledger/commitGuidEvents.ts";
import { appendLedgerAudit } from "./sql/ledger/appendLedgerAudit.ts";
import { readLedgerAudit } from "./sql/ledger/readLedgerAudit.ts";
import { selectLedgerStats, type LedgerStats } from "./sql/ledger/selectLedgerStats.ts";
import { purgeGuidStreams } from "./sql/ledger/purgeGuidStreams.ts";
import { readStream } from "./sql/events/readStream.ts";
import type { StoredEvent } from "./sql/events/storedEvent.ts";
import { rebuildGuidLedger } from "./sql/ledger/rebuildGuidLedger.ts";
import { selectGuidEntriesByState, selectGuidEntriesChangedBefore, type LedgerCursor } from "./sql/ledger/selectGuidEntries.ts";
import { selectGuidEntry } from "./sql/ledger/selectGuidEntry.ts";

/** A channel request to claim: its GUID, its exact text and its fingerprint. */
export interface ClaimInput {
  readonly guid: string;
  readonly request: string;
  readonly fingerprint: string;
}

/** The claim of SPEC G4: one transaction, one insert-or-nothing on the GUID primary key. */
const claimByInsert: GuidClaimer = (store, input, clock) =>
  store.transaction(async (trx) => {
    const event = guidEvents.received({ ...input, at: clock.now() });
    const entry = evolveGuid(null, event);
    return (await claimGuid(trx, store.dialect, entry, event)) ? entry : null;
  });

/** Settings of a ledger. */
export interface GuidLedgerOptions {
  readonly clock?: Clock;
}

/**
 * What {@link GuidLedger.receive} did with a channel request:
 * - `claimed`: the GUID is new and this call owns it (RECEIVED); send it next;
 * - `resend`: the GUID was FAILED and this call sends it again (SENT);
 * - `repeat`: nothing to send; answer from `entry` (the refusal says why: `replay`,
 *   `in-progress`, `outcome-unknown`, `attempts-exhausted` or `payload-mismatch`).
 */
export type ReceiveResult =
  | { readonly kind: "claimed"; readonly entry: LedgerEntry }
  | { readonly kind: "resend"; readonly entry: LedgerEntry }
  | { readonly kind: "repeat"; readonly entry: LedgerEntry; readonly refusal: GuidRefusal };

/** The result of one decided change: the entry after it, or the refusal and the entry as it is. */
export type LedgerChange =
  | { readonly accepted: true; readonly entry: LedgerEntry }
  | { readonly accepted: false; readonly refusal: GuidRefusal; readonly entry: LedgerEntry };

/** What a recovery sweep did. */
export interface RecoverResult {
  /** RECEIVED entries turned FAILED: claimed and certainly never sent. */
  readonly failed: readonly string[];
  /** SENT entries turned UNKNOWN: maybe sent; settle them with the inquiry (resolve). */
  readonly unknown: readonly string[];
  /** In-flight entries younger than the limit, left alone. */
  readonly young: number;
}

/** What a purge did. */
export interface PurgeResult {
  /** DONE entries deleted with their events. */
  readonly purged: number;
  /** Events deleted with them. */
  readonly events: number;
  /** Entries older than the retention that were kept, by state (only DONE is ever purged). */
  readonly kept: Readonly<Record<GuidState, number>>;
}

/**
 * The idempotency ledger of the GUID relay (SPEC G1–G8): one durable entry per GUID, each
 * change decided by the guid machine and written as events plus the `ledger` projection in one
 * transaction. It does no network I/O: the relay (in the adapters) calls the core between
 * {@link send} and {@link record}, and between {@link mayInquire} and {@link resolve}.
 *
 * @example
 * const ledger = new GuidLedger(store);
 * const got = await ledger.receive({ guid, request, fingerprint, maxAttempts: 5 });
 * if (got.kind === "claimed") { const sent = await ledger.send(guid); … }
 */
export class GuidLedger {
  readonly #store: VerqStore;
  readonly #clock: Clock;
  readonly #decide: GuidDecider;
  readonly #claim: GuidClaimer;

  constructor(store: VerqStore, options: GuidLedgerOptions = {}) {
    this.#store = store;
    this.#clock = options.clock ?? systemClock;
    const seams = seamsOf<GuidLedgerSeams>(options);
    this.#decide = seams.decider ?? decideGuid;
    this.#claim = seams.claimer ?? claimByInsert;
  }

  /**
   * Takes a channel request (SPEC G3, G4). A new GUID is claimed by one insert-or-nothing: the
   * caller that inserted owns it (`claimed`). A known GUID is decided by the machine: a FAILED
   * entry below `maxAttempts` is sent again (`resend`); anything else is a `repeat`, answered
   * from the entry, and the same GUID with another fingerprint is refused (`payload-mismatch`).
   */
  async receive(input: ClaimInput & { readonly maxAttempts: number }): Promise<ReceiveResult> {
    checkGuid(input.guid);
    const maxAttempts = checkMaxAttempts(input.maxAttempts);
    const claimInput = { guid: input.guid, request: input.request, fingerprint: input.fingerprint };
    // Two rounds at most: a GUID purged between the claim and the read is claimed again.
    for (let round = 0; ; round++) {
      const claimed = await this.#claim(this.#store, claimInput, this.#clock);
      if (claimed !== null) return { kind: "claimed", entry: claimed };
      const result = await this.#store.transaction(async (trx): Promise<ReceiveResult | null> => {
        const now = this.#clock.now();
        const entry = await selectGuidEntry(trx, input.guid);
        if (entry === null) return null;
        const decision = this.#decide(entry, guidCommands.repeat({ fingerprint: input.fingerprint, maxAttempts, now }));
        if (!decision.accepted) return { kind: "repeat", entry, refusal: decision.refusal };
        await commitGuidEvents(trx, this.#store.dialect, entry, decision.after, decision.events);
        return { kind: "resend", entry: decision.after };
      });
      if (result !== null) return result;
      if (round >= 1) throw new VerqError("VERQ_UNEXPECTED", `guid ${input.guid} vanished twice while being claimed`);
    }
  }

  /** RECEIVED → SENT, right before the core is called. Refused when the entry moved on (e.g. swept). */
  async send(guid: string): Promise<LedgerChange> {
    return this.#change(guid, (now) => guidCommands.send({ now }));
  }

  /** Records the outcome of the core call made for `attempt` (SENT → DONE, UNKNOWN or FAILED). */
  async record(guid: string, attempt: number, outcome: CoreOutcome): Promise<LedgerChange> {
    return this.#change(guid, (now) => guidCommands.record({ attempt, outcome, now }));
  }

  /**
   * True when the machine would let the inquiry settle `entry` now: it is UNKNOWN and at least
   * `minAgeMs` old (SPEC G5). Ask the core only then. Pure: reads the clock, writes nothing.
   */
  mayInquire(entry: LedgerEntry, minAgeMs: number): boolean {
    const probe = guidCommands.resolve({
      answer: { kind: "not-found" },
      minAgeMs: checkDuration(minAgeMs, "the min age"),
      now: this.#clock.now(),
    });
    return this.#decide(entry, probe).accepted;
  }

  /** Settles an UNKNOWN entry with the inquiry's answer: found → DONE, not found → FAILED (SPEC G5). */
  async resolve(guid: string, answer: InquiryAnswer, minAgeMs: number): Promise<LedgerChange> {
    checkDuration(minAgeMs, "the min age");
    return this.#change(guid, (now) => guidCommands.resolve({ answer, minAgeMs, now }));
  }

  /** FAILED → SENT for a reprocess with the same GUID, below `maxAttempts` (SPEC G6). */
  async reprocess(guid: string, maxAttempts: number): Promise<LedgerChange> {
    checkMaxAttempts(maxAttempts);
    return this.#change(guid, (now) => guidCommands.reprocess({ maxAttempts, now }));
  }

  /**
   * The recovery sweep for relays that died mid-request: RECEIVED entries at least
   * `olderThanMs` old → FAILED (certainly not sent), SENT ones → UNKNOWN (maybe sent). Looks at
   * up to `limit` in-flight entries, oldest first.
   */
  async recover(olderThanMs: number, limit = 1_000): Promise<RecoverResult> {
    checkDuration(olderThanMs, "the recovery limit");
    const failed: string[] = [];
    const unknown: string[] = [];
    let young = 0;
    for (const candidate of await selectGuidEntriesByState(this.#store.db, ["RECEIVED", "SENT"], limit)) {
      const change = await this.#change(candidate.guid, (now) => guidCommands.recover({ olderThanMs, now }), true);
      if (change === null) continue;
      if (change.accepted) (change.entry.state === "FAILED" ? failed : unknown).push(candidate.guid);
      else if (change.refusal === "too-young") young++;
    }
    return { failed, unknown, young };
  }

  /**
   * The retention purge (SPEC G7): deletes DONE entries last changed at least `retentionMs`
   * ago, with their events, in batches; each batch writes one `ledger.purged` audit event in
   * the same transaction. Throws `VERQ_PURGE_RETENTION_TOO_SHORT` and changes nothing unless
   * `retentionMs > resendWindowMs`. UNKNOWN, FAILED, RECEIVED and SENT are never deleted; how
   * many of them are older than the retention is reported in `kept`.
   */
  async purge(options: { retentionMs: number; resendWindowMs: number; batchSize?: number }): Promise<PurgeResult> {
    const retentionMs = checkDuration(options.retentionMs, "the retention");
    const resendWindowMs = checkDuration(options.resendWindowMs, "the resend window");
    if (!retentionCoversResendWindow(retentionMs, resendWindowMs)) {
      throw new GuidError(
        "VERQ_PURGE_RETENTION_TOO_SHORT",
        `the retention (${retentionMs} ms) must be longer than the channel's resend window (${resendWindowMs} ms); a resend after the purge would be processed as new`,
      );
    }
    const batchSize = options.batchSize ?? 500;
    const kept = Object.fromEntries(GUID_STATES.map((s) => [s, 0])) as Record<GuidState, number>;
    let purged = 0;
    let events = 0;
    let cursor: LedgerCursor | null = null;
    for (;;) {
      const batch = await this.#store.transaction(async (trx) => {
        const now = this.#clock.now();
        const candidates = await selectGuidEntriesChangedBefore(trx, now - retentionMs, batchSize, cursor);
        const guids: string[] = [];
        const keptHere: GuidState[] = [];
        for (const entry of candidates) {
          const decision = this.#decide(entry, guidCommands.purge({ retentionMs, resendWindowMs, now }));
          if (decision.accepted) guids.push(entry.guid);
          else keptHere.push(entry.state);
        }
        const deleted = await purgeGuidStreams(trx, guids);
        if (guids.length > 0) {
          await appendLedgerAudit(
            trx,
            this.#store.dialect,
            guidEvents.ledgerPurged({ guids, retentionMs, resendWindowMs, at: now }),
          );
        }
        return { candidates, guids, deleted, keptHere };
      });
      purged += batch.guids.length;
      events += batch.deleted;
      for (const state of batch.keptHere) kept[state]++;
      const last = batch.candidates.at(-1);
      if (last === undefined || batch.candidates.length < batchSize) break;
      cursor = { updatedAt: last.updatedAt, guid: last.guid };
    }
    return { purged, events, kept };
  }

  /** The GUID's entry, or `null` when the ledger has none. */
  async get(guid: string): Promise<LedgerEntry | null> {
    checkGuid(guid);
    return selectGuidEntry(this.#store.db, guid);
  }

  /** The GUID's event timeline, oldest first. Throws `VERQ_UNKNOWN_GUID` when there is none. */
  async history(guid: string): Promise<StoredEvent[]> {
    checkGuid(guid);
    const events = await readStream(this.#store.db, GUID_STREAM, guid);
    if (events.length === 0) throw unknownGuid(guid);
    return events;
  }

  /** Entries in `states`, oldest change first, at most `limit`. */
  async list(states: readonly GuidState[], limit = 1_000): Promise<LedgerEntry[]> {
    return selectGuidEntriesByState(this.#store.db, states, limit);
  }

  /** Counts by state, the oldest UNKNOWN and FAILED entries, attempts and the last purge. */
  async stats(): Promise<LedgerStats> {
    return selectLedgerStats(this.#store.db);
  }

  /** The purge audit trail (`ledger.purged` events), oldest first. */
  async purges(): Promise<StoredEvent<{ guids: readonly string[]; retentionMs: number; resendWindowMs: number; at: number }>[]> {
    return readLedgerAudit(this.#store.db);
  }

  /** Folds the `ledger` projection again from the event log, in one transaction. */
  async rebuild(): Promise<{ entries: number; events: number }> {
    return this.#store.transaction((trx) => rebuildGuidLedger(trx));
  }

  async #change(guid: string, command: (now: number) => GuidCommand): Promise<LedgerChange>;
  async #change(guid: string, command: (now: number) => GuidCommand, missingIsNull: true): Promise<LedgerChange | null>;
  async #change(guid: string, command: (now: number) => GuidCommand, missingIsNull = false): Promise<LedgerChange | null> {
    checkGuid(guid);
    return this.#store.transaction(async (trx) => {
      const now = this.#clock.now();
      const entry = await selectGuidEntry(trx, guid);
      if (entry === null) {
        if (missingIsNull) return null;
        throw unknownGuid(guid);
      }
      const decision = this.#decide(entry, command(now));
      if (!decision.accepted) return { accepted: false, refusal: decision.refusal, entry };
      await commitGuidEvents(trx, this.#store.dialect, entry, decision.after, decision.events);
      return { accepted: true, entry: decision.after };
    });
  }
}

function checkGuid(guid: unknown): string {
  if (!isValidGuid(guid)) {
    throw new GuidError(
      "VERQ_INVALID_GUID",
      "a GUID is 1 to 128 ASCII letters, digits, . _ : or -, starting with a letter or digit",
    );
  }
  return guid;
}

function checkDuration(ms: unknown, what: string): number {
  if (typeof ms !== "number" || !Number.isSafeInteger(ms) || ms < 0) {
    throw new VerqError("VERQ_INVALID_ARGUMENT", `${what} must be a whole, non-negative number of milliseconds`);
  }
  return ms;
}

function unknownGuid(guid: string): GuidError {
  return new GuidError("VERQ_UNKNOWN_GUID", `the ledger has no entry for GUID ${guid}; check the GUID`);
}
