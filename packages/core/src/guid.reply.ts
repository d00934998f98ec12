import { relayAnswer } from "./guid.answer.ts";
import { GUID_CODES } from "./guid.codes.ts";
import { payloadMismatchError } from "./guid.errors.ts";
import type { GuidRefusal } from "./guid.machine.ts";
import type { LedgerEntry } from "./guid.types.ts";

/** What the relay answers a channel for one GUID: the HTTP status and the exact body. */
export interface GuidReply {
  readonly status: 200 | 422;
  /** The body, exactly; for a DONE entry the core's stored answer, byte for byte. */
  readonly body: string;
  /** True when the body is the stored answer of an earlier call (a resend of a DONE GUID). */
  readonly replayed: boolean;
}

/**
 * The relay's answer for `entry` as it stands (SPEC G3), `refusal` being how the guid machine
 * refused the channel's repeat that this answers (null when the entry was just claimed or sent):
 * DONE → the core's stored response, byte for byte, `replayed` when the repeat was refused as
 * `replay`; RECEIVED or SENT → E903; UNKNOWN → E901; FAILED → E902; all with HTTP 200, the code
 * in the body being the answer. A repeat refused as `payload-mismatch` (the same GUID with
 * another payload, IETF Idempotency-Key draft) is HTTP 422 whatever the state: E422 and the
 * error `VERQ_GUID_PAYLOAD_MISMATCH`, recorded nowhere and never sent to the core.
 */
export function guidReply(entry: LedgerEntry, refusal: GuidRefusal | null = null): GuidReply {
  if (refusal === "payload-mismatch") {
    const { code, message } = payloadMismatchError();
    const body = JSON.stringify({ guid: entry.guid, code: GUID_CODES.payloadMismatch, error: { code, message } });
    return { status: 422, body, replayed: false };
  }
  switch (entry.state) {
    case "DONE":
      if (entry.response === null) throw new Error(`ledger entry ${entry.guid} is DONE without a response`);
      return { status: 200, body: entry.response, replayed: refusal === "replay" };
    case "RECEIVED":
    case "SENT":
      return { status: 200, body: relayAnswer(entry.guid, GUID_CODES.inProgress), replayed: false };
    case "UNKNOWN":
      return { status: 200, body: relayAnswer(entry.guid, GUID_CODES.unknown), replayed: false };
    case "FAILED":
      return { status: 200, body: relayAnswer(entry.guid, GUID_CODES.notSent), replayed: false };
  }
}
