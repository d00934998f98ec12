import {
  GUID_CODES,
  MAX_JSON_DEPTH,
  relayAnswer,
  type ChannelRequestProblem,
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
 * The answer for an entry as it stands (SPEC G3): DONE → the stored response, byte for byte;
 * RECEIVED or SENT → E903; UNKNOWN → E901; FAILED → E902. All with HTTP 200: the code in the
 * body is the answer.
 */
export function replyFor(entry: LedgerEntry, replayed: boolean): RelayReply {
  switch (entry.state) {
    case "DONE":
      if (entry.response === null) throw new Error(`ledger entry ${entry.guid} is DONE without a response`);
      return { status: 200, body: entry.response, state: entry.state, replayed };
    case "RECEIVED":
    case "SENT":
      return { status: 200, body: relayAnswer(entry.guid, GUID_CODES.inProgress), state: entry.state, replayed: false };
    case "UNKNOWN":
      return { status: 200, body: relayAnswer(entry.guid, GUID_CODES.unknown), state: entry.state, replayed: false };
    case "FAILED":
      return { status: 200, body: relayAnswer(entry.guid, GUID_CODES.notSent), state: entry.state, replayed: false };
  }
}

/**
 * The same GUID with another payload (IETF Idempotency-Key draft: 422): refused, recorded
 * nowhere, never sent to the core. The body keeps the relay's answer shape and adds the error.
 */
export function payloadMismatchReply(entry: LedgerEntry): RelayReply {
  const body = JSON.stringify({
    guid: entry.guid,
    code: GUID_CODES.payloadMismatch,
    error: {
      code: "VERQ_GUID_PAYLOAD_MISMATCH",
      message: "this GUID was already used with another payload; a new transfer needs a new GUID",
    },
  });
  return { status: 422, body, state: entry.state, replayed: false };
}

const PROBLEMS: Record<ChannelRequestProblem, { code: string; message: string }> = {
  "invalid-json": {
    code: "VERQ_INVALID_JSON",
    message: `the body must be UTF-8 JSON, with finite numbers, nested at most ${MAX_JSON_DEPTH} deep`,
  },
  "not-an-object": { code: "VERQ_INVALID_BODY", message: "the body must be a JSON object with a guid" },
  "missing-guid": { code: "VERQ_MISSING_GUID", message: 'the body must carry the transfer\'s GUID as "guid"' },
  "invalid-guid": {
    code: "VERQ_INVALID_GUID",
    message: "a GUID is 1 to 128 ASCII letters, digits, . _ : or -, starting with a letter or digit",
  },
};

/** HTTP 400 for a request refused before the ledger: nothing is recorded. */
export function badRequestReply(problem: ChannelRequestProblem): RelayReply {
  return { status: 400, body: JSON.stringify({ error: PROBLEMS[problem] }), state: null, replayed: false };
}
