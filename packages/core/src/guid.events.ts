/** The stream type under which each GUID's events are stored (stream id: the GUID). */
export const GUID_STREAM = "guid";

/** The stream type of the ledger's audit trail (purges); never purged itself. */
export const LEDGER_AUDIT_STREAM = "ledger-audit";

/** The one stream id of {@link LEDGER_AUDIT_STREAM}. */
export const LEDGER_AUDIT_ID = "purges";

/** Who handed a request to the core: the first claim, a channel resend of a FAILED entry, or reprocess. */
export type SendReason = "claim" | "channel" | "reprocess";

export interface GuidReceived {
  readonly type: "guid.received";
  readonly data: { readonly guid: string; readonly request: string; readonly fingerprint: string; readonly at: number };
}
export interface GuidSent {
  readonly type: "guid.sent";
  /** `attempt` counts from 1: the entry's attempts after this send. */
  readonly data: { readonly attempt: number; readonly by: SendReason; readonly at: number };
}
export interface GuidDone {
  readonly type: "guid.done";
  /** `via`: the call's own answer, a late answer to an entry already UNKNOWN, or the inquiry API. */
  readonly data: {
    readonly code: string;
    readonly response: string;
    readonly via: "answer" | "late-answer" | "inquiry";
    readonly at: number;
  };
}
export interface GuidUnknown {
  readonly type: "guid.unknown";
  readonly data: { readonly reason: "no-answer" | "invalid-answer" | "recovered"; readonly at: number };
}
export interface GuidFailed {
  readonly type: "guid.failed";
  readonly data: { readonly reason: "not-sent" | "not-found" | "recovered"; readonly at: number };
}
/**
 * The purge decision for one DONE entry. It is never appended to the GUID's stream (the
 * stream is deleted); the store writes a {@link LedgerPurged} audit event instead.
 */
export interface GuidPurged {
  readonly type: "guid.purged";
  readonly data: { readonly retentionMs: number; readonly resendWindowMs: number; readonly at: number };
}

/** Every fact recorded about a GUID. Names are namespaced `guid.*` strings. */
export type GuidEvent = GuidReceived | GuidSent | GuidDone | GuidUnknown | GuidFailed | GuidPurged;

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
