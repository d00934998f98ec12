import {
  channelRequestError,
  guidReply,
  type ChannelRequestProblem,
  type GuidReply,
  type GuidRefusal,
  type GuidState,
  type LedgerEntry,
} from "@verq/core";

/**
 * What the relay answers the channel: core's {@link GuidReply} (the exact body, whether it is a
 * replay), with any HTTP status (a request refused before the ledger is 400) and the ledger
 * state behind it.
 */
export interface RelayReply extends Omit<GuidReply, "status"> {
  readonly status: number;
  /** The ledger state behind the answer; `null` for a request refused before the ledger. */
  readonly state: GuidState | null;
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
