import {
  GUID_STREAM,
  VerqError,
  checkMaxAttempts,
  decideGuid,
  guidCommands,
  invalidGuidError,
  isValidGuid,
  newGuidEntry,
  receiptRefusalError,
  systemClock,
  unknownGuidError,
  type Clock,
  type CoreOutcome,
  type GuidCommand,
  type GuidDecider,
  type GuidEntry,
  type GuidEvent,
  type GuidRefusal,
  type GuidState,
  type InquiryAnswer,
  type LedgerEntry,
} from "@verq/core";
import type { Kysely } from "kysely";
import { handleMany, WITNESSED, type StreamProjection } from "./command-path.ts";
import { GroupCommit } from "./group-commit.ts";
import type { VerqDatabase } from "./schema.ts";
import type { VerqStore } from "./store.ts";
import { checkSeenVersion, entryUnchangedSince, type SeenVersion } from "./seen-version.ts";
import { purgeGuids, type PurgeResult } from "./guid-purge.ts";
import { commitGuidCreations, guidStream, stored, type GuidChange } from "./streams/guid-stream.ts";
import { readLedgerAudit } from "./sql/ledger/readLedgerAudit.ts";
import { selectLedgerStats, type LedgerStats } from "./sql/ledger/selectLedgerStats.ts";
import { readStream } from "./sql/events/readStream.ts";
import type { StoredEvent } from "./sql/events/storedEvent.ts";
import { rebuildGuidLedger } from "./sql/ledger/rebuildGuidLedger.ts";
import { selectGuidEntriesByState } from "./sql/ledger/selectGuidEntries.ts";
import { selectGuidEntry } from "./sql/ledger/selectGuidEntry.ts";

/** A channel request to claim: its GUID, its exact text and its fingerprint. */
export interface ClaimInput {
  readonly guid: string;
  readonly request: string;
  readonly fingerprint: string;
}

/**
 * How a claim decides the owners of new GUIDs: commits `creations` (what the guid machine decided
 * from each GUID's blank: NEW → RECEIVED; one per GUID) and returns, for each, `true` when this
 * call owns the GUID, `false` when another call had created it. The ledger's own is one
 * transaction with one insert-or-nothing for all of them (`commitGuidCreations`, SPEC G4), run
 * for the claims that arrived together (group commit) and only after a read found no entry.
 */
export type GuidClaimer = (store: VerqStore, creations: readonly GuidChange[]) => Promise<readonly boolean[]>;

/** The claim of SPEC G4: one transaction, one insert-or-nothing of each GUID stream's first event. */
const claimByInsert: GuidClaimer = (store, creations) =>
  store.transaction((trx) => commitGuidCreations(trx, store.dialect, creations), undefined, WITNESSED);

/** One change of an existing entry waiting for its batch: the GUID and its command, built at the decision's time. */
interface ChangeRequest {
  readonly guid: string;
  readonly command: (now: number) => GuidCommand;
  /** The version of the entry the operator saw, for an operator's change (see {@link SeenVersion}). */
  readonly expectedVersion?: number | undefined;
}

/** What a batched change gave one request; `missing` when the ledger has no entry for the GUID. */
type ChangeOutcome = LedgerChange | { readonly accepted: "missing" };

/** Settings of a ledger. */
export interface GuidLedgerOptions {
  readonly clock?: Clock;
  /**
   * What decides every change of an entry: the guid machine (`decideGuid`) by default, and in
   * production always. A test passes a variant to prove that its suite catches a broken rule.
   */
  readonly decider?: GuidDecider | undefined;
  /**
   * How new GUIDs are claimed (see {@link GuidClaimer}): one insert-or-nothing by default, and in
   * production always. A test passes a lookup-then-insert to prove that its suite catches it.
   */
  readonly claimer?: GuidClaimer | undefined;
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

/**
 * The idempotency ledger of the GUID relay (SPEC G1–G8): one durable entry per GUID, each
 * change, its creation included, one command decided by the guid machine on the store's one
 * command path (load, decide, append, project): events and the `ledger` projection in one
 * transaction. The ledger only gathers facts (the clock, the request, the core's outcome) and
 * holds no rule of its own. It does no network I/O: the relay (in the adapters) calls the core
 * between {@link send} and {@link record}, and between {@link mayInquire} and {@link resolve}.
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
  readonly #stream: StreamProjection<GuidEntry, GuidEvent>;
  /** Claims that arrive together share one transaction (one per GUID in each). */
  readonly #claims: GroupCommit<GuidChange, boolean>;
  /** Changes of existing entries (SENT, recorded outcomes, operations) that arrive together share one transaction. */
  readonly #changes: GroupCommit<ChangeRequest, ChangeOutcome>;

  constructor(store: VerqStore, options: GuidLedgerOptions = {}) {
    this.#store = store;
    this.#stream = guidStream(store.dialect);
    this.#clock = options.clock ?? systemClock;
    this.#decide = options.decider ?? decideGuid;
    const claim = options.claimer ?? claimByInsert;
    this.#claims = new GroupCommit((creations) => claim(store, creations), { keyOf: (creation) => creation.after.guid });
    this.#changes = new GroupCommit((requests) =>
      store.transaction((trx) => this.#changeMany(trx, requests), undefined, WITNESSED),
    );
  }

  /**
   * Takes a channel request (SPEC G3, G4). The guid machine decides the GUID's creation from its
   * blank (NEW → RECEIVED; an invalid GUID is refused: `VERQ_INVALID_GUID`). A repeat is a read:
   * when the GUID has an entry and the machine refuses the repeat against it (a replay of DONE,
   * in progress, unknown, attempts exhausted, another payload), the entry as read answers it and
   * nothing is written. Only when the read finds no entry is the GUID claimed, and then by one
   * insert-or-nothing, whatever the read said (claims that arrive together share a transaction):
   * the caller that inserted owns it (`claimed`). A caller that lost, and a repeat the machine
   * accepts (a FAILED entry below `maxAttempts`, sent again: `resend`), decide the repeat again in
   * a write transaction against the entry as it is then; the same GUID with another fingerprint
   * is refused (`payload-mismatch`).
   */
  async receive(input: ClaimInput & { readonly maxAttempts: number }): Promise<ReceiveResult> {
    const maxAttempts = checkMaxAttempts(input.maxAttempts);
    const { guid, request, fingerprint } = input;
    const blank = newGuidEntry(guid);
    const creation = this.#decide(blank, guidCommands.receive({ guid, request, fingerprint, now: this.#clock.now() }));
    if (!creation.accepted) throw receiptRefusalError(guid, creation.refusal);
    const repeat = (now: number) => guidCommands.repeat({ fingerprint, maxAttempts, now });
    // A read, not a write transaction: refused repeats change nothing, so the entry as read answers them.
    let existing = await selectGuidEntry(this.#store.db, this.#store.dialect, guid);
    if (existing !== null) {
      const decision = this.#decide(existing, repeat(this.#clock.now()));
      if (!decision.accepted) return { kind: "repeat", entry: existing, refusal: decision.refusal };
    }
    // Two rounds at most: a GUID purged between the claim and the repeat is claimed again.
    for (let round = 0; ; round++) {
      if (existing === null) {
        const change: GuidChange = { before: blank, after: creation.after, events: creation.events };
        if (await this.#claims.submit(change)) return { kind: "claimed", entry: creation.after };
      }
      const result = await this.#store.transaction(
        async (trx): Promise<ReceiveResult | null> => {
          const [outcome] = await this.#changeMany(trx, [{ guid, command: repeat }]);
          if (outcome === undefined || outcome.accepted === "missing") return null;
          if (outcome.accepted) return { kind: "resend", entry: outcome.entry };
          return { kind: "repeat", entry: outcome.entry, refusal: outcome.refusal };
        },
        undefined,
        WITNESSED,
      );
      if (result !== null) return result;
      if (round >= 1) throw new VerqError("VERQ_UNEXPECTED", `guid ${guid} vanished twice while being claimed`);
      existing = null;
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

  /**
   * Settles an UNKNOWN entry with the inquiry's answer: found → DONE, not found → FAILED (SPEC G5).
   * Given the version the operator saw (`expectedVersion`), an entry that moved on since is
   * refused with `VERQ_ENTRY_CHANGED`, changing nothing.
   */
  async resolve(guid: string, answer: InquiryAnswer, minAgeMs: number, seen: SeenVersion = {}): Promise<LedgerChange> {
    checkDuration(minAgeMs, "the min age");
    return this.#change(guid, (now) => guidCommands.resolve({ answer, minAgeMs, now }), false, seen);
  }

  /**
   * FAILED → SENT for a reprocess with the same GUID, below `maxAttempts` (SPEC G6). Given the
   * version the operator saw (`expectedVersion`), an entry that moved on since is refused with
   * `VERQ_ENTRY_CHANGED`, changing nothing.
   */
  async reprocess(guid: string, maxAttempts: number, seen: SeenVersion = {}): Promise<LedgerChange> {
    checkMaxAttempts(maxAttempts);
    return this.#change(guid, (now) => guidCommands.reprocess({ maxAttempts, now }), false, seen);
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
   * The retention purge (SPEC G7): every entry, oldest change first, gets one `guid.purge`
   * decided by the guid machine, which accepts DONE entries at least `retentionMs` old when
   * `retentionMs > resendWindowMs`. Accepted ones are deleted with their events, in batches; each
   * batch writes one `ledger.purged` audit event in the same transaction. The scan stops at the
   * first entry the machine finds too young (every later one is younger). If the machine refuses
   * the retention as too short, it throws `VERQ_PURGE_RETENTION_TOO_SHORT` and changes nothing.
   * UNKNOWN, FAILED, RECEIVED and SENT are never deleted; how many of them are older than the
   * retention is reported in `kept`.
   */
  async purge(options: { retentionMs: number; resendWindowMs: number; batchSize?: number }): Promise<PurgeResult> {
    const retentionMs = checkDuration(options.retentionMs, "the retention");
    const resendWindowMs = checkDuration(options.resendWindowMs, "the resend window");
    const purge = { retentionMs, resendWindowMs, batchSize: options.batchSize ?? 500 };
    return purgeGuids(this.#store, this.#decide, this.#stream, this.#clock, purge);
  }

  /** The GUID's entry, or `null` when the ledger has none. */
  async get(guid: string): Promise<LedgerEntry | null> {
    checkGuid(guid);
    return selectGuidEntry(this.#store.db, this.#store.dialect, guid);
  }

  /** The GUID's event timeline, oldest first. Throws `VERQ_UNKNOWN_GUID` when there is none. */
  async history(guid: string): Promise<StoredEvent[]> {
    checkGuid(guid);
    const events = await readStream(this.#store.db, GUID_STREAM, guid);
    if (events.length === 0) throw unknownGuidError(guid);
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

  /**
   * One change of `guid`'s existing entry, decided by the guid machine on the command path in
   * the next group-commit batch: changes that arrive together share one transaction, each
   * decided exactly as if it were alone, in arrival order. An operator's change given the version
   * they saw has a transaction of its own, so that its refusal rolls back nothing but itself.
   */
  async #change(guid: string, command: (now: number) => GuidCommand): Promise<LedgerChange>;
  async #change(guid: string, command: (now: number) => GuidCommand, missingIsNull: true): Promise<LedgerChange | null>;
  async #change(
    guid: string,
    command: (now: number) => GuidCommand,
    missingIsNull: false,
    seen: SeenVersion,
  ): Promise<LedgerChange>;
  async #change(
    guid: string,
    command: (now: number) => GuidCommand,
    missingIsNull = false,
    seen: SeenVersion = {},
  ): Promise<LedgerChange | null> {
    checkGuid(guid);
    const { expectedVersion } = seen;
    checkSeenVersion(expectedVersion);
    const request = { guid, command, expectedVersion };
    const outcome =
      expectedVersion === undefined
        ? await this.#changes.submit(request)
        : ((await this.#store.transaction((trx) => this.#changeMany(trx, [request]), undefined, WITNESSED))[0] ?? {
            accepted: "missing" as const,
          });
    if (outcome.accepted !== "missing") return outcome;
    if (missingIsNull) return null;
    throw unknownGuidError(guid);
  }

  /**
   * The one command path for a batch of changes, in the caller's transaction: load the entries,
   * decide each command through the machine in order (from the GUID's blank if it has no
   * events, where the machine refuses it as `unknown-guid`), append and project. Each outcome
   * carries the entry it was decided from, which a refusal answers with.
   */
  async #changeMany(trx: Kysely<VerqDatabase>, requests: readonly ChangeRequest[]): Promise<ChangeOutcome[]> {
    const now = this.#clock.now();
    const items = requests.map((r) => ({ id: r.guid, commands: [r.command(now)] }));
    const decided = await handleMany(trx, this.#store.dialect, this.#stream, this.#decide, items, newGuidEntry);
    return decided.map(({ before, decision }, i): ChangeOutcome => {
      // After the decision, so that the transaction it is thrown in rolls back whatever was decided.
      entryUnchangedSince(requests[i]?.expectedVersion, before);
      if (decision.accepted) return { accepted: true, entry: decision.after };
      if (decision.refusal === "unknown-guid") return { accepted: "missing" };
      return { accepted: false, refusal: decision.refusal, entry: stored(before) };
    });
  }
}

/** The GUID argument of a read or of a change of an existing entry (a receipt's GUID is the machine's `validGuid` guard). */
function checkGuid(guid: unknown): string {
  if (!isValidGuid(guid)) throw invalidGuidError();
  return guid;
}

function checkDuration(ms: unknown, what: string): number {
  if (typeof ms !== "number" || !Number.isSafeInteger(ms) || ms < 0) {
    throw new VerqError("VERQ_INVALID_ARGUMENT", `${what} must be a whole, non-negative number of milliseconds`);
  }
  return ms;
}
