import { VerqError, isVerqError, type VerqErrorCode } from "./errors.ts";

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
    // The codes extend VerqErrorCode; they live here so that the relay's files stay together.
    super(code as unknown as VerqErrorCode, message, options);
  }
}

/** True for a {@link GuidError} (or any verq error) with `code`; works without `instanceof`. */
export function isGuidError(value: unknown, code: GuidErrorCode): value is GuidError {
  return isVerqError(value) && (value.code as string) === code;
}
