import {
  channelRequestError,
  guidReply,
  type ChannelRequestProblem,
  type GuidRefusal,
  type GuidState,
  type LedgerEntry,
} from "@verq/core";

/** What the relay answers the channel: an HTTP status and the exact body text. */
export interface RelayReply {
  readonly status: number;
  /** The body, exactly; for a DONE entry the core's stored answer, byte for byte. */
  readonly body: string;
  /** The ledger state behind the answer; `null` for a request refused before the ledger. */
  readonly state: GuidState | null;
  /** True when the body is the stored answer of an earlier call (a resend of a DONE GUID). */
  readonly replayed: boolean;
}

/**
 * The answer for an entry as it stands, after the machine's refusal of the channel's repeat if
 * there was one (null: the entry was just claimed or sent): core's `guidReply` decides it
 * (SPEC G3; a payload mismatch is 422).
 */
export function replyFor(entry: LedgerEntry, refusal: GuidRefusal | null = null): RelayReply {
  return { ...guidReply(entry, refusal), state: entry.state };
}

/** HTTP 400 for a request refused before the ledger, with core's code for the problem: nothing is recorded. */
export function badRequestReply(problem: ChannelRequestProblem): RelayReply {
  return { status: 400, body: JSON.stringify({ error: channelRequestError(problem) }), state: null, replayed: false };
}
