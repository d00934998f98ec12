/**
 * The five states of a ledger entry (SPEC G3):
 * - `RECEIVED`: claimed, not yet sent (a repeat is answered as for SENT);
 * - `SENT`: claimed and being sent (a repeat gets `E903` at once);
 * - `DONE`: the core gave a definite answer (a repeat gets the stored response, byte for byte);
 * - `UNKNOWN`: sent, no usable answer (a repeat gets `E901`; the core is not called);
 * - `FAILED`: certainly not sent (a repeat may be sent again, within the attempt cap).
 */
export type GuidState = (typeof GUID_STATES)[number];

/** Every state, in lifecycle order. */
export const GUID_STATES = ["RECEIVED", "SENT", "DONE", "UNKNOWN", "FAILED"] as const;

/**
 * One row of the idempotency ledger (SPEC G2): the fold of the GUID's event stream. There is
 * at most one per GUID; the GUID is the primary key.
 */
export interface LedgerEntry {
  readonly guid: string;
  readonly state: GuidState;
  /**
   * The code a repeat of this GUID is answered with: `E903` while RECEIVED or SENT, the core's
   * code when DONE, `E901` when UNKNOWN, `E902` when FAILED.
   */
  readonly code: string;
  /** The channel's request exactly as received (the text sent to the core, and again on reprocess). */
  readonly request: string;
  /** The core's answer exactly as received; only a DONE entry has one. */
  readonly response: string | null;
  /** `sha256:<hex>` of the canonical JSON of the request: a repeat with another payload is refused. */
  readonly fingerprint: string;
  /** How many times the request was handed to the core (sent, or attempted and certainly not sent). */
  readonly attempts: number;
  readonly createdAt: number;
  /** Time of the last event: every age rule (inquiry min age, recovery, retention) measures from it. */
  readonly updatedAt: number;
  /** Version of the GUID's event stream: the number of events applied. */
  readonly version: number;
}

/**
 * A GUID whose stream has no events yet (state `NEW`, version 0): what the guid machine decides
 * the channel's first receipt from, so that the creation of an entry is a guarded transition like
 * every other. Never stored: the ledger holds no row for it.
 */
export interface NewGuidEntry extends Omit<LedgerEntry, "state"> {
  readonly state: "NEW";
}

/** What the guid machine decides from: a ledger entry, or a GUID with no events yet. */
export type GuidEntry = LedgerEntry | NewGuidEntry;

/** The blank of `guid` before its first event (see {@link NewGuidEntry}). */
export function newGuidEntry(guid: string): NewGuidEntry {
  return {
    guid,
    state: "NEW",
    code: "",
    request: "",
    response: null,
    fingerprint: "",
    attempts: 0,
    createdAt: 0,
    updatedAt: 0,
    version: 0,
  };
}
