import { isVerqError } from "./errors.ts";

/**
 * What kind of failure an attempt ended with:
 * - `unexpected`: the handler threw something that is neither `Retryable` nor `Permanent`, and
 *   its declared classifier (if any) did not map it; the job stays leased until its lease expires
 *   (SPEC J5: the effect of such a failure is unknown);
 * - `bad-ack`: the handler returned something other than exactly `true` (SPEC J5), same rule;
 * - `retryable`: a `Retryable`, or an error its classifier mapped to a retry;
 * - `permanent`: a `Permanent`, or an error its classifier mapped to one.
 */
export const FAILURE_CATEGORIES = ["unexpected", "bad-ack", "retryable", "permanent"] as const;

/** One of {@link FAILURE_CATEGORIES}. */
export type FailureCategory = (typeof FAILURE_CATEGORIES)[number];

/**
 * A failure as the log keeps it: identifiers only, never the error's message or anything of the
 * payload (SPEC J7: error text and personal data never reach the log).
 */
export interface JobFailure {
  readonly category: FailureCategory;
  /** The thrown value's class name (`TypeError`, `FetchError`), or its `typeof` when it is not an object. */
  readonly errorClass: string;
  /** The error's `code`, or its cause's (fetch's `TypeError` carries the socket's), when it is a short identifier (`ECONNREFUSED`, `VERQ_BAD_ACK`), else `null`. */
  readonly code: string | null;
  /** An HTTP status carried by the error (`status`, `statusCode` or `response.status`, 100–599), else `null`. */
  readonly status: number | null;
}

/** A failure as the job's projection keeps its last one: which attempt, under which token, and when. */
export interface RecordedFailure extends JobFailure {
  readonly attempt: number;
  readonly token: number;
  readonly at: number;
}

/** The fields of a thrown object that a failure's description reads. */
interface Fields {
  readonly code?: unknown;
  readonly status?: unknown;
  readonly statusCode?: unknown;
  readonly response?: { readonly status?: unknown };
}

/** A class name or code kept in the log: a short identifier, so that no free text gets in. */
const FAILURE_IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$.:-]{0,63}$/;

const identifierOrNull = (value: unknown): string | null =>
  typeof value === "string" && FAILURE_IDENTIFIER.test(value) ? value : null;

const httpStatus = (value: unknown): number | null =>
  Number.isInteger(value) && (value as number) >= 100 && (value as number) <= 599 ? (value as number) : null;

/** The class name of a thrown object: its constructor's, else its `name`, when that is an identifier. */
function className(error: object): string {
  const named = identifierOrNull((error as { constructor?: { name?: unknown } }).constructor?.name);
  if (named !== null && named !== "Object") return named;
  return identifierOrNull((error as { name?: unknown }).name) ?? named ?? "Object";
}

/**
 * Describes what an attempt failed with, as identifiers only (see {@link JobFailure}). Pure and
 * total: any thrown value (an `Error`, a string, `undefined`, an object with a hostile getter) is
 * described without reading its message.
 */
export function describeFailure(thrown: unknown, category: FailureCategory): JobFailure {
  // A `Retryable` or `Permanent` that wraps the error it stands for describes that error.
  const error = isVerqError(thrown) && thrown.cause !== undefined && category !== "unexpected" ? thrown.cause : thrown;
  if (typeof error !== "object" || error === null) {
    return { category, errorClass: error === null ? "null" : typeof error, code: null, status: null };
  }
  try {
    const fields = error as Fields & { cause?: Fields };
    const status = httpStatus(fields.status) ?? httpStatus(fields.statusCode) ?? httpStatus(fields.response?.status);
    // fetch() throws `TypeError: fetch failed` with the socket's error, and its code, as the cause.
    const code = identifierOrNull(fields.code) ?? identifierOrNull(fields.cause?.code);
    return { category, errorClass: className(error), code, status };
  } catch {
    // A getter that throws says nothing more.
    return { category, errorClass: "Object", code: null, status: null };
  }
}

/** The category of a verq error a handler threw on purpose, or of any other failure. */
export function failureCategoryOf(error: unknown): FailureCategory {
  if (isVerqError(error, "VERQ_RETRYABLE")) return "retryable";
  if (isVerqError(error, "VERQ_PERMANENT")) return "permanent";
  if (isVerqError(error, "VERQ_BAD_ACK")) return "bad-ack";
  return "unexpected";
}

/** Whether `value` is a well-formed {@link JobFailure} (a stored event's, a command's). */
export function isJobFailure(value: unknown): value is JobFailure {
  if (typeof value !== "object" || value === null) return false;
  const f = value as Record<string, unknown>;
  return (
    (FAILURE_CATEGORIES as readonly unknown[]).includes(f["category"]) &&
    typeof f["errorClass"] === "string" &&
    (f["code"] === null || typeof f["code"] === "string") &&
    (f["status"] === null || httpStatus(f["status"]) !== null)
  );
}
