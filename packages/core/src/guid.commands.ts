import type { CoreOutcome, InquiryAnswer } from "./guid.answer.ts";

/**
 * Commands are what the relay and its operators ask of a ledger entry; the guid machine
 * accepts or refuses them. Every command carries `now`, because time is an input.
 */

/**
 * The channel's first request for a GUID whose stream has no events (SPEC G4): NEW → RECEIVED,
 * the stream's first event, decided from the GUID's blank (`newGuidEntry`) before the one
 * insert-or-nothing that claims it. Refused as `invalid-guid` for a GUID that does not satisfy
 * `GUID_PATTERN`, as `stream-id-mismatch` for another GUID than the stream's, and as
 * `already-received` once the stream exists (a known GUID is a `guid.repeat`).
 */
export interface ReceiveCommand {
  readonly type: "guid.receive";
  readonly guid: string;
  /** The channel's request exactly as received. */
  readonly request: string;
  /** `sha256:<hex>` of the request's canonical JSON (see `fingerprintRequest`). */
  readonly fingerprint: string;
  readonly now: number;
}
/**
 * The claimer hands a RECEIVED entry to the core: RECEIVED → SENT (attempt 1), decided before
 * the call (SPEC G4). Refused as `not-received` in any other state, e.g. once the recovery
 * sweep moved the entry on: then the core must not be called.
 */
export interface SendCommand {
  readonly type: "guid.send";
  readonly now: number;
}
/**
 * The channel sent a GUID the ledger already holds (G3: what a repeated GUID gets). Only a
 * FAILED entry below the cap is accepted (FAILED → SENT, sent again by `channel`); every other
 * case is refused, and the refusal is the answer: `in-progress` (RECEIVED, SENT → E903),
 * `replay` (DONE → the stored response), `outcome-unknown` (UNKNOWN → E901, the core is not
 * called), `attempts-exhausted` (FAILED at the cap → E902), `payload-mismatch` (another
 * fingerprint, in every state → E422).
 */
export interface RepeatCommand {
  readonly type: "guid.repeat";
  /** The repeat's own fingerprint, compared with the one stored for the GUID. */
  readonly fingerprint: string;
  /** A FAILED entry is sent again only while `attempts < maxAttempts`. */
  readonly maxAttempts: number;
  readonly now: number;
}
/**
 * The core call of attempt `attempt` ended with `outcome`: SENT → DONE (a valid answer),
 * FAILED (certainly not sent) or UNKNOWN (no answer, or an invalid one). Accepted only while
 * SENT and only for the current attempt: a late result of an earlier attempt is refused as
 * `stale-attempt`, anything not SENT as `not-in-flight`.
 */
export interface RecordCommand {
  readonly type: "guid.record";
  /** The attempt the call was made for: the `attempt` of the `guid.sent` event before it. */
  readonly attempt: number;
  readonly outcome: CoreOutcome;
  readonly now: number;
}
/**
 * The core's inquiry API answered about an UNKNOWN entry (G5): found → DONE with the core's
 * answer, not found → FAILED. Refused as `too-young` while the entry changed less than
 * `minAgeMs` ago, and as `not-unknown` in any other state.
 */
export interface ResolveCommand {
  readonly type: "guid.resolve";
  readonly answer: InquiryAnswer;
  /** The core's longest processing time: a younger UNKNOWN may still be in flight. */
  readonly minAgeMs: number;
  readonly now: number;
}
/**
 * An operator sends a FAILED entry again, with the same GUID and the stored request (G6):
 * FAILED → SENT (by `reprocess`) while `attempts < maxAttempts`, else refused as
 * `attempts-exhausted`. Any other state, UNKNOWN above all, is refused as `not-failed`.
 */
export interface ReprocessCommand {
  readonly type: "guid.reprocess";
  /** The attempt cap: the entry is sent again only while `attempts < maxAttempts`. */
  readonly maxAttempts: number;
  readonly now: number;
}
/**
 * The recovery sweep after a relay died mid-request: RECEIVED → FAILED (never handed to the
 * core: certainly not sent), SENT → UNKNOWN (maybe sent). Refused as `too-young` for an entry
 * changed less than `olderThanMs` ago (its relay may still be at work), and as
 * `not-in-flight` in any other state.
 */
export interface RecoverCommand {
  readonly type: "guid.recover";
  /** Only entries last changed at least this long ago are recovered. */
  readonly olderThanMs: number;
  readonly now: number;
}
/**
 * The retention purge of a DONE entry (G7). Accepted only for DONE, only when
 * `retentionMs > resendWindowMs` (else `retention-too-short`) and only once the entry is at
 * least `retentionMs` old (else `too-young`); any other state is refused in the same order,
 * finally as `not-done`, so UNKNOWN and FAILED are never deleted by age. Its `guid.purged`
 * event is appended with the version check and deleted with the stream in one transaction, so
 * it is never seen stored.
 */
export interface PurgeCommand {
  readonly type: "guid.purge";
  /** How long a DONE entry is kept after its last change. */
  readonly retentionMs: number;
  /** The channel's longest resend window; the retention must be strictly longer. */
  readonly resendWindowMs: number;
  readonly now: number;
}

/** Everything the relay and its operators may ask of a ledger entry; each is decided by `guidMachine`. */
export type GuidCommand =
  | ReceiveCommand
  | SendCommand
  | RepeatCommand
  | RecordCommand
  | ResolveCommand
  | ReprocessCommand
  | RecoverCommand
  | PurgeCommand;

/** Typed creators: the only place command type strings are spelled. */
export const guidCommands = {
  receive: (c: Omit<ReceiveCommand, "type">): ReceiveCommand => ({ type: "guid.receive", ...c }),
  send: (c: Omit<SendCommand, "type">): SendCommand => ({ type: "guid.send", ...c }),
  repeat: (c: Omit<RepeatCommand, "type">): RepeatCommand => ({ type: "guid.repeat", ...c }),
  record: (c: Omit<RecordCommand, "type">): RecordCommand => ({ type: "guid.record", ...c }),
  resolve: (c: Omit<ResolveCommand, "type">): ResolveCommand => ({ type: "guid.resolve", ...c }),
  reprocess: (c: Omit<ReprocessCommand, "type">): ReprocessCommand => ({ type: "guid.reprocess", ...c }),
  recover: (c: Omit<RecoverCommand, "type">): RecoverCommand => ({ type: "guid.recover", ...c }),
  purge: (c: Omit<PurgeCommand, "type">): PurgeCommand => ({ type: "guid.purge", ...c }),
} as const;
