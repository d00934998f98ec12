import { VerqError, isVerqError, type VerqErrorCode } from "./errors.ts";
import type { ChannelRequestProblem } from "./guid.answer.ts";
import { MAX_JSON_DEPTH } from "./json.ts";
import type { GuidRefusal } from "./guid.machine.ts";

/**
 * Stable codes of the relay's errors:
 * - `VERQ_UNKNOWN_GUID`: the ledger has no entry for the GUID (CLI exit 4);
 * - `VERQ_INVALID_GUID`: not a GUID (see `GUID_PATTERN`);
 * - `VERQ_GUID_PAYLOAD_MISMATCH`: the GUID is known with another payload (relay code `E422`);
 * - `VERQ_PURGE_RETENTION_TOO_SHORT`: a purge whose retention is not longer than the channel's
 *   resend window would let a late resend be processed as new (SPEC G7).
 */
export type GuidErrorCode =
  "VERQ_UNKNOWN_GUID" | "VERQ_INVALID_GUID" | "VERQ_GUID_PAYLOAD_MISMATCH" | "VERQ_PURGE_RETENTION_TOO_SHORT";

/** An error of the relay or its ledger; a {@link VerqError} with one of the {@link GuidErrorCode}s. */
export class GuidError extends VerqError {
  constructor(code: GuidErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** True for a {@link GuidError} (or any verq error) with `code`; works without `instanceof`. */
export function isGuidError(value: unknown, code: GuidErrorCode): value is GuidError {
  return isVerqError(value, code);
}

/** `VERQ_INVALID_GUID`: what a GUID must look like. */
export function invalidGuidError(): GuidError {
  return new GuidError("VERQ_INVALID_GUID", INVALID_GUID_MESSAGE);
}

/** `VERQ_GUID_PAYLOAD_MISMATCH`: the GUID was used with another payload (the repeat refused as `payload-mismatch`). */
export function payloadMismatchError(): GuidError {
  return new GuidError(
    "VERQ_GUID_PAYLOAD_MISMATCH",
    "this GUID was already used with another payload; a new transfer needs a new GUID",
  );
}

/** `VERQ_UNKNOWN_GUID`: the ledger has no entry for `guid` (the machine refused a change as `unknown-guid`). */
export function unknownGuidError(guid: string): GuidError {
  return new GuidError("VERQ_UNKNOWN_GUID", `the ledger has no entry for GUID ${guid}; check the GUID`);
}

/**
 * The coded error of a refused first receipt of `guid` (`guid.receive` from the blank entry):
 * `invalid-guid` is `VERQ_INVALID_GUID`; any other refusal there is a bug, `VERQ_UNEXPECTED`.
 */
export function receiptRefusalError(guid: string, refusal: GuidRefusal): VerqError {
  if (refusal === "invalid-guid") return invalidGuidError();
  return new VerqError("VERQ_UNEXPECTED", `the receipt of guid ${guid} was refused: ${refusal}`);
}

/**
 * The coded error of a refused purge, or null when the refusal is an answer (the entry is kept):
 * `retention-too-short` is `VERQ_PURGE_RETENTION_TOO_SHORT` (SPEC G7), whatever the entry.
 */
export function purgeRefusalError(refusal: GuidRefusal, retentionMs: number, resendWindowMs: number): GuidError | null {
  if (refusal !== "retention-too-short") return null;
  return new GuidError(
    "VERQ_PURGE_RETENTION_TOO_SHORT",
    `the retention (${retentionMs} ms) must be longer than the channel's resend window (${resendWindowMs} ms); a resend after the purge would be processed as new`,
  );
}

/** The JSON error of a channel request refused before the ledger (HTTP 400): its code and message. */
export function channelRequestError(problem: ChannelRequestProblem): { readonly code: VerqErrorCode; readonly message: string } {
  return CHANNEL_REQUEST_ERRORS[problem];
}

const INVALID_GUID_MESSAGE = "a GUID is 1 to 128 ASCII letters, digits, . _ : or -, starting with a letter or digit";

const CHANNEL_REQUEST_ERRORS: Readonly<
  Record<ChannelRequestProblem, { readonly code: VerqErrorCode; readonly message: string }>
> = {
  "invalid-json": {
    code: "VERQ_INVALID_JSON",
    message: `the body must be UTF-8 JSON, with finite numbers, nested at most ${MAX_JSON_DEPTH} deep`,
  },
  "not-an-object": { code: "VERQ_INVALID_BODY", message: "the body must be a JSON object with a guid" },
  "missing-guid": { code: "VERQ_MISSING_GUID", message: 'the body must carry the transfer\'s GUID as "guid"' },
  "invalid-guid": { code: "VERQ_INVALID_GUID", message: INVALID_GUID_MESSAGE },
};
