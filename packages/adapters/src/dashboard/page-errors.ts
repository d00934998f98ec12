import { isVerqError, type VerqErrorCode } from "@verq/core";
import { edgeErrorOf } from "../http/edge-errors.ts";

/**
 * The HTTP status of each code the dashboard answers with a page of its own rather than a 500:
 * bad input (400), what is not there (404), a refusal by a machine's rule or a view that is no
 * longer current (409), a limit (429) and a core that did not answer (502). Both the acts'
 * refusals and the plugin's error handler read it; a code it does not hold is a 500 there.
 */
export const PAGE_STATUS: Readonly<Partial<Record<VerqErrorCode, number>>> = {
  VERQ_INVALID_ARGUMENT: 400,
  VERQ_INVALID_ID: 400,
  VERQ_INVALID_GUID: 400,
  VERQ_INVALID_NOTE: 400,
  VERQ_INVALID_DEADLINE: 400,
  VERQ_UNKNOWN_JOB: 404,
  VERQ_UNKNOWN_GUID: 404,
  // Refused by the job machine, or a job or entry that moved on since the operator read it.
  VERQ_NOT_DEAD: 409,
  VERQ_NOT_CANCELLABLE: 409,
  VERQ_JOB_CHANGED: 409,
  VERQ_BULK_RUNNING: 409,
  // Refused by the guid machine.
  VERQ_ENTRY_TOO_YOUNG: 409,
  VERQ_NOT_UNKNOWN: 409,
  VERQ_NOT_FAILED: 409,
  VERQ_ATTEMPTS_EXHAUSTED: 409,
  VERQ_ENTRY_CHANGED: 409,
  VERQ_REDRIVE_RATE_LIMITED: 429,
  VERQ_RETRYABLE: 502,
};

/**
 * The status and code of a page for anything a route threw: a verq error with its code, at its
 * status in {@link PAGE_STATUS} or 500; anything else as the HTTP edges answer it (`edgeErrorOf`:
 * what Fastify refused keeps its 4xx, the rest is 500 `VERQ_UNEXPECTED`).
 */
export function pageErrorOf(error: unknown): { status: number; code: VerqErrorCode } {
  if (isVerqError(error)) return { status: PAGE_STATUS[error.code] ?? 500, code: error.code };
  return edgeErrorOf(typeof error === "object" && error !== null ? error : {});
}
