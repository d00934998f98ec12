import { describeKind } from "./type-name.ts";

/**
 * Every stable code verq answers with, once: the codes of its errors (`VerqError.code`), of the
 * JSON errors of its HTTP edges (`{"error":{"code",…}}`) and of the append-only triggers of its
 * event log. A code is added here before it is used anywhere; a test fails when a source file
 * names a `VERQ_*` code that is not in this list.
 */
export const VERQ_ERROR_CODES = [
  // Bad input, refused before anything is written.
  "VERQ_INVALID_ARGUMENT",
  "VERQ_INVALID_ID",
  "VERQ_INVALID_PAYLOAD",
  "VERQ_INVALID_LEASE",
  "VERQ_INVALID_NOTE",
  "VERQ_INVALID_DEADLINE",
  "VERQ_INVALID_BODY",
  "VERQ_INVALID_CRON",
  "VERQ_INVALID_TIMEZONE",
  // Jobs: refusals of the job machine and of the operators.
  "VERQ_UNKNOWN_JOB",
  "VERQ_NOT_DEAD",
  "VERQ_NOT_CANCELLABLE",
  "VERQ_ENQUEUE_CONFLICT",
  "VERQ_JOB_ARCHIVED",
  "VERQ_REDRIVE_RATE_LIMITED",
  "VERQ_BULK_RUNNING",
  "VERQ_LOCK_LOST",
  "VERQ_UNKNOWN_QUEUE",
  "VERQ_JOB_CHANGED",
  "VERQ_ENTRY_CHANGED",
  // The store.
  "VERQ_VERSION_CONFLICT",
  "VERQ_STORE_BUSY",
  "VERQ_STORE_UNREACHABLE",
  "VERQ_STORE_CONNECTION_LOST",
  "VERQ_STORE_FULL",
  "VERQ_STORE_CORRUPT",
  "VERQ_APPEND_ONLY",
  "VERQ_STORE_NOT_INITIALIZED",
  "VERQ_TABLE_CONFLICT",
  "VERQ_NESTED_TRANSACTION",
  // Streams a service declares (`defineStream`).
  "VERQ_INVALID_STREAM",
  "VERQ_STREAM_TYPE_TAKEN",
  "VERQ_UNSUPPORTED_MACHINE",
  "VERQ_UPCASTER_GAP",
  "VERQ_UNKNOWN_COMMAND",
  "VERQ_EVENT_FROM_NEWER_SCHEMA",
  // A sender's outcomes.
  "VERQ_RETRYABLE",
  "VERQ_PERMANENT",
  "VERQ_BAD_ACK",
  // The GUID relay and its ledger (see `GuidErrorCode`).
  "VERQ_UNKNOWN_GUID",
  "VERQ_INVALID_GUID",
  "VERQ_GUID_PAYLOAD_MISMATCH",
  "VERQ_PURGE_RETENTION_TOO_SHORT",
  "VERQ_ENTRY_TOO_YOUNG",
  "VERQ_NOT_UNKNOWN",
  "VERQ_NOT_FAILED",
  "VERQ_ATTEMPTS_EXHAUSTED",
  "VERQ_MISSING_GUID",
  "VERQ_INVALID_JSON",
  // The file queue (see `MessageErrorCode`).
  "VERQ_FILE_NOT_FOUND",
  "VERQ_FILE_EXISTS",
  "VERQ_MESSAGE_REFUSED",
  // The HTTP edges: what a request is refused for before a handler runs, or a receiver's key.
  "VERQ_NOT_FOUND",
  "VERQ_BODY_TOO_LARGE",
  "VERQ_UNSUPPORTED_MEDIA_TYPE",
  "VERQ_HEADERS_TOO_LARGE",
  "VERQ_MALFORMED_REQUEST",
  "VERQ_REQUEST_TIMEOUT",
  "VERQ_URL_TOO_LONG",
  "VERQ_INVALID_URL",
  "VERQ_INVALID_HEADER",
  "VERQ_MISSING_IDEMPOTENCY_KEY",
  "VERQ_INVALID_IDEMPOTENCY_KEY",
  // The dashboard's login and forms.
  "VERQ_UNAUTHENTICATED",
  "VERQ_LOGIN_THROTTLED",
  "VERQ_FORBIDDEN",
  "VERQ_FORM_USED",
  // A server that cannot listen.
  "VERQ_PORT_IN_USE",
  // Anything else: a bug or a thrown non-error.
  "VERQ_UNEXPECTED",
] as const;

/**
 * Every error verq throws carries a stable `code` (`VERQ_…`) that callers may switch on, and a
 * message that says what to do. Messages never contain payload contents. A closed union: the
 * codes of {@link VERQ_ERROR_CODES} and no other.
 */
export type VerqErrorCode = (typeof VERQ_ERROR_CODES)[number];

const VERQ_ERROR_BRAND = Symbol.for("verq.error");

/** Base class of every verq error. Use {@link isVerqError} rather than `instanceof` across realms. */
export class VerqError extends Error {
  readonly code: VerqErrorCode;
  readonly [VERQ_ERROR_BRAND] = true;

  constructor(code: VerqErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** True for any verq error, optionally of one code; works without `instanceof`. */
export function isVerqError(value: unknown, code?: VerqErrorCode): value is VerqError {
  if (typeof value !== "object" || value === null) return false;
  const branded = (value as Record<symbol, unknown>)[VERQ_ERROR_BRAND] === true;
  return branded && (code === undefined || (value as VerqError).code === code);
}

/**
 * Thrown by a sender for a temporary failure (timeout, 5xx, 429): the job is retried within its
 * budget of attempts and its deadline.
 */
export class Retryable extends VerqError {
  constructor(message = "temporary failure: the job will be retried within its budget", options?: { cause?: unknown }) {
    super("VERQ_RETRYABLE", message, options);
  }
}

/** Thrown by a sender for a failure that retrying cannot fix: the job goes `dead(permanent)`. */
export class Permanent extends VerqError {
  constructor(message = "permanent failure: the job is quarantined as dead(permanent)", options?: { cause?: unknown }) {
    super("VERQ_PERMANENT", message, options);
  }
}

/**
 * A sender answered something other than exactly `true`. It propagates to the caller and leaves
 * the job leased: a later claim recovers it after the lease expires (SPEC J5).
 */
export class BadAck extends VerqError {
  /** `typeof` of what the sender returned; never the value itself (it may hold personal data). */
  readonly receivedType: string;

  constructor(received: unknown) {
    const receivedType = received === null ? "null" : typeof received;
    super(
      "VERQ_BAD_ACK",
      `sender returned ${describeKind(received)}, not exactly true; the job stays leased until its lease expires`,
    );
    this.receivedType = receivedType;
  }
}

/**
 * `VERQ_VERSION_CONFLICT`: another writer appended to the same stream first. The
 * UNIQUE(stream, version) constraint of the event log is the only arbiter of that race, so the
 * loser's whole transaction is rolled back and nothing of its decision is kept; reload and
 * decide again.
 */
export class VersionConflict extends VerqError {
  constructor(streamType: string, streamId: string, expectedVersion: number) {
    super(
      "VERQ_VERSION_CONFLICT",
      `stream ${streamType}/${streamId} moved past version ${expectedVersion}; reload and decide again`,
    );
  }
}

/**
 * Normalises anything thrown into an `Error`: any `Error` (verq's or not) is returned as it
 * is; any other value is wrapped in a `VERQ_UNEXPECTED` {@link VerqError} whose message names
 * only its `typeof` (never the value, which may be a payload) and whose `cause` is the value.
 */
export function coerceError(value: unknown): Error {
  if (value instanceof Error) return value;
  return new VerqError("VERQ_UNEXPECTED", `non-error value thrown: ${typeof value}`, { cause: value });
}
