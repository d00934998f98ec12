/** The stream type under which each GUID's events are stored (stream id: the GUID). */
export const GUID_STREAM = "guid";

/** The stream type of the ledger's audit trail (purges); never purged itself. */
export const LEDGER_AUDIT_STREAM = "ledger-audit";

/** The one stream id of {@link LEDGER_AUDIT_STREAM}. */
export const LEDGER_AUDIT_ID = "purges";

/** Who handed a request to the core: the first claim, a channel resend of a FAILED entry, or reprocess. */
export type SendReason = "claim" | "channel" | "reprocess";

/**
 * A new GUID claimed (SPEC G4): the first event of its stream, decided by the guid machine from
 * the GUID's blank (NEW → RECEIVED, `guid.receive`) and written by the one insert-or-nothing of
 * the claim, in the same transaction as the new RECEIVED row; whoever inserted owns the GUID.
 */
export interface GuidReceived {
  readonly type: "guid.received";
  readonly data: {
    readonly guid: string;
    /** The channel's request exactly as received. */
    readonly request: string;
    /** `sha256:<hex>` of the request's canonical JSON (see `fingerprintRequest`). */
    readonly fingerprint: string;
    readonly at: number;
  };
}
/**
 * The request is handed to the core (write before send, SPEC G4): RECEIVED → SENT by the
 * claimer (`claim`), or FAILED → SENT by a channel resend (`channel`) or an operator's
 * reprocess (`reprocess`, G6), only below the attempt cap. Written before the core is called.
 */
export interface GuidSent {
  readonly type: "guid.sent";
  /** `attempt` counts from 1: the entry's attempts after this send. */
  readonly data: { readonly attempt: number; readonly by: SendReason; readonly at: number };
}
/**
 * A definite answer of the core (`0000`, `B2xx`, `E500`), stored to be replayed byte for byte
 * (SPEC G3): SENT → DONE when the call of the current attempt answered, or UNKNOWN → DONE when
 * the inquiry found the transfer (G5).
 */
export interface GuidDone {
  readonly type: "guid.done";
  /**
   * `via`: the call's own answer, a late answer to an entry already UNKNOWN, or the inquiry API.
   * No transition of the guid machine writes `late-answer`: an UNKNOWN entry is settled only by
   * the inquiry (G5).
   */
  readonly data: {
    readonly code: string;
    /** The core's answer text, exactly as received. */
    readonly response: string;
    readonly via: "answer" | "late-answer" | "inquiry";
    readonly at: number;
  };
}
/**
 * The core may have acted and nobody knows (SPEC G3, `E901`): SENT → UNKNOWN when the call got
 * no answer in time (`no-answer`) or an answer that is not a valid core answer
 * (`invalid-answer`), or when the recovery sweep finds a SENT entry a dead relay left
 * (`recovered`). Only the inquiry settles it (G5); while UNKNOWN it is never sent again.
 */
export interface GuidUnknown {
  readonly type: "guid.unknown";
  readonly data: { readonly reason: "no-answer" | "invalid-answer" | "recovered"; readonly at: number };
}
/**
 * The request certainly did not reach the core (SPEC G3, `E902`): SENT → FAILED when the call
 * was certainly not sent (`not-sent`), UNKNOWN → FAILED when the inquiry says the core never
 * saw it (`not-found`, G5), or RECEIVED → FAILED when the recovery sweep finds a claim never
 * handed to the core (`recovered`). A FAILED entry may be sent again with the same GUID (G6).
 */
export interface GuidFailed {
  readonly type: "guid.failed";
  readonly data: { readonly reason: "not-sent" | "not-found" | "recovered"; readonly at: number };
}
/**
 * The purge decision for one DONE entry. It is appended with the version check (nobody moved
 * the entry since it was decided) and deleted with the whole stream in the same transaction, so
 * it is never seen stored; the store writes a {@link LedgerPurged} audit event instead.
 */
export interface GuidPurged {
  readonly type: "guid.purged";
  readonly data: { readonly retentionMs: number; readonly resendWindowMs: number; readonly at: number };
}

/** Every fact recorded about a GUID. Names are namespaced `guid.*` strings. */
export type GuidEvent = GuidReceived | GuidSent | GuidDone | GuidUnknown | GuidFailed | GuidPurged;

/** The `type` of a {@link GuidEvent}; all but `guid.purged` (never stored) may appear in a GUID's stream. */
export type GuidEventType = GuidEvent["type"];

/**
 * The audit record of one purge batch (stream `ledger-audit/purges`): which GUIDs were
 * deleted with their events, under which retention and resend window. Identifiers only.
 */
export interface LedgerPurged {
  readonly type: "ledger.purged";
  readonly data: {
    readonly guids: readonly string[];
    readonly retentionMs: number;
    readonly resendWindowMs: number;
    readonly at: number;
  };
}

/** Typed creators: the only place event type strings are spelled. */
export const guidEvents = {
  received: (data: GuidReceived["data"]): GuidReceived => ({ type: "guid.received", data }),
  sent: (data: GuidSent["data"]): GuidSent => ({ type: "guid.sent", data }),
  done: (data: GuidDone["data"]): GuidDone => ({ type: "guid.done", data }),
  unknown: (data: GuidUnknown["data"]): GuidUnknown => ({ type: "guid.unknown", data }),
  failed: (data: GuidFailed["data"]): GuidFailed => ({ type: "guid.failed", data }),
  purged: (data: GuidPurged["data"]): GuidPurged => ({ type: "guid.purged", data }),
  ledgerPurged: (data: LedgerPurged["data"]): LedgerPurged => ({ type: "ledger.purged", data }),
} as const;

/** All GUID event type names, for validation of stored rows. */
export const GUID_EVENT_TYPES: readonly GuidEventType[] = [
  "guid.received",
  "guid.sent",
  "guid.done",
  "guid.unknown",
  "guid.failed",
  "guid.purged",
];
