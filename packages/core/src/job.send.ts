import { BadAck } from "./errors.ts";
import { describeFailure, failureCategoryOf, type JobFailure } from "./job.failure.ts";
import type { FinishOutcome } from "./job.types.ts";

/** How a sender's call settled: it returned `value`, or it threw `error`. */
export type SendSettlement = { readonly returned: unknown } | { readonly threw: unknown };

/**
 * A handler's own rule for errors it knows: `"retry"` (safe to run again after a backoff),
 * `"permanent"` (running again cannot help), or `undefined` (unknown: SPEC J5's rule applies).
 * Declared with the handler, e.g. "an `ECONNREFUSED` is retryable": the connection was never made.
 */
export type FailureClassifier = (error: unknown) => "retry" | "permanent" | undefined;

/**
 * A send's outcome to record (with the failure it stands for, if it was one), or the error to
 * propagate with its description (the job then stays leased, and the failure is recorded).
 */
export type SendVerdict =
  | { readonly outcome: FinishOutcome; readonly failure: JobFailure | null }
  | { readonly error: unknown; readonly failure: JobFailure };

/**
 * What a send means (SPEC J5): a return of exactly `true` is `ok`; any other return value is a
 * {@link BadAck} to propagate; a thrown `Retryable` (`VERQ_RETRYABLE`) is `retry`, a thrown
 * `Permanent` (`VERQ_PERMANENT`) is `permanent`; any other thrown value is what `classify`
 * (the handler's declared classifier) says of it, and when it says nothing (or throws itself)
 * propagates as it is. A propagated error finishes nothing: the job stays leased until its
 * lease expires. Every failure comes with its description ({@link describeFailure}).
 */
export function sendVerdict(settled: SendSettlement, classify?: FailureClassifier): SendVerdict {
  if ("returned" in settled) {
    if (settled.returned === true) return { outcome: "ok", failure: null };
    const error = new BadAck(settled.returned);
    return { error, failure: describeFailure(error, "bad-ack") };
  }
  const { threw } = settled;
  const category = failureCategoryOf(threw);
  if (category === "retryable") return { outcome: "retry", failure: describeFailure(threw, category) };
  if (category === "permanent") return { outcome: "permanent", failure: describeFailure(threw, category) };
  const declared = category === "unexpected" ? classified(classify, threw) : undefined;
  if (declared === "retry") return { outcome: "retry", failure: describeFailure(threw, "retryable") };
  if (declared === "permanent") return { outcome: "permanent", failure: describeFailure(threw, "permanent") };
  return { error: threw, failure: describeFailure(threw, category) };
}

/** What the classifier says of `error` (compared with `"retry"` and `"permanent"` by the caller); a classifier that throws says nothing. */
function classified(classify: FailureClassifier | undefined, error: unknown): unknown {
  let answer: unknown;
  try {
    answer = classify?.(error);
  } catch {
    // A classifier that throws says nothing: J5's rule applies.
  }
  return answer;
}
