import { BadAck, isVerqError } from "./errors.ts";
import type { FinishOutcome } from "./job.types.ts";

/** How a sender's call settled: it returned `value`, or it threw `error`. */
export type SendSettlement = { readonly returned: unknown } | { readonly threw: unknown };

/** A send's outcome to record, or the error to propagate (the job then stays leased). */
export type SendVerdict = { readonly outcome: FinishOutcome } | { readonly error: unknown };

/**
 * What a send means (SPEC J5): a return of exactly `true` is `ok`; any other return value is a
 * {@link BadAck} to propagate; a thrown `Retryable` (`VERQ_RETRYABLE`) is `retry`, a thrown
 * `Permanent` (`VERQ_PERMANENT`) is `permanent`; any other thrown value propagates as it is.
 * A propagated error records nothing: the job stays leased until its lease expires.
 */
export function sendVerdict(settled: SendSettlement): SendVerdict {
  if ("returned" in settled) return settled.returned === true ? { outcome: "ok" } : { error: new BadAck(settled.returned) };
  const { threw } = settled;
  if (isVerqError(threw, "VERQ_RETRYABLE")) return { outcome: "retry" };
  if (isVerqError(threw, "VERQ_PERMANENT")) return { outcome: "permanent" };
  return { error: threw };
}
