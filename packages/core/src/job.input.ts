import { VerqError, type VerqErrorCode } from "./errors.ts";
import type { HandledKinds } from "./job.commands.ts";
import type { FinishOutcome } from "./job.types.ts";

/** The longest job id, owner name or ordering key accepted, in characters. */
export const MAX_IDENTIFIER_LENGTH = 256;
/** The longest lease a claim or heartbeat may ask for: one day. */
export const MAX_LEASE_MS = 86_400_000;
/** The largest attempt budget a job may have. */
export const MAX_ATTEMPTS_LIMIT = 1_000;

// Printable characters only: no control characters (line breaks, NUL, escape sequences) in ids.
const PRINTABLE = /^[^\p{Cc}\p{Cs}]+$/u;

function fail(code: VerqErrorCode, message: string): never {
  throw new VerqError(code, message);
}

/**
 * Returns `value` when it is a job id, owner or ordering key: a string of 1 to
 * {@link MAX_IDENTIFIER_LENGTH} characters, no control character or lone surrogate (an id goes into
 * logs and alerts, SPEC J7). Otherwise throws a {@link VerqError} with `code`
 * (`VERQ_INVALID_ID` unless told), naming `what` and never the value.
 */
export function checkIdentifier(value: unknown, what: string, code: VerqErrorCode = "VERQ_INVALID_ID"): string {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_IDENTIFIER_LENGTH || !PRINTABLE.test(value)) {
    fail(code, `${what} must be 1 to ${MAX_IDENTIFIER_LENGTH} printable characters`);
  }
  return value;
}

/**
 * Returns `value` when it is a lease length: a whole number of ms from 1 to {@link MAX_LEASE_MS};
 * otherwise throws `VERQ_INVALID_LEASE`.
 */
export function checkLeaseMs(value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0 || value > MAX_LEASE_MS) {
    fail("VERQ_INVALID_LEASE", `the lease must be a whole number of milliseconds from 1 to ${MAX_LEASE_MS}`);
  }
  return value;
}

/**
 * Returns `value` when it is a fencing token as a caller presents it: a whole number of at least 1;
 * otherwise throws `VERQ_INVALID_ARGUMENT`.
 */
export function checkToken(value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    fail("VERQ_INVALID_ARGUMENT", "a token is a whole number of at least 1, as returned by claim");
  }
  return value;
}

/**
 * Returns `value` when it is an attempt budget: a whole number from 1 to
 * {@link MAX_ATTEMPTS_LIMIT}; otherwise throws `VERQ_INVALID_ARGUMENT`.
 */
export function checkMaxAttempts(value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1 || value > MAX_ATTEMPTS_LIMIT) {
    fail("VERQ_INVALID_ARGUMENT", `maxAttempts must be a whole number from 1 to ${MAX_ATTEMPTS_LIMIT}`);
  }
  return value;
}

/**
 * Returns `value` when it is a whole number of ms since the epoch strictly after `now` (a
 * deadline); otherwise throws `VERQ_INVALID_DEADLINE`.
 */
export function checkFutureTime(value: unknown, now: number, what: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= now) {
    fail("VERQ_INVALID_DEADLINE", `${what} must be a whole number of ms since the epoch, later than now`);
  }
  return value;
}

/** Returns `value` when it is a whole, non-negative number of ms since the epoch; otherwise throws `VERQ_INVALID_ARGUMENT`. */
export function checkTime(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    fail("VERQ_INVALID_ARGUMENT", `${what} must be a whole number of ms since the epoch`);
  }
  return value;
}

const OUTCOMES: readonly FinishOutcome[] = ["ok", "retry", "permanent"];

/** Returns `value` when it is a {@link FinishOutcome} (`ok`, `retry`, `permanent`); otherwise throws `VERQ_INVALID_ARGUMENT`. */
export function checkOutcome(value: unknown): FinishOutcome {
  if (typeof value !== "string" || !(OUTCOMES as readonly string[]).includes(value)) {
    fail("VERQ_INVALID_ARGUMENT", "the outcome must be one of ok, retry, permanent");
  }
  return value as FinishOutcome;
}

/** A job kind's name: a letter, then up to 63 letters, digits or `_ . : -` (it is a metric label and a CLI word). */
export const KIND_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;

/**
 * Returns `value` when it is a job kind's name ({@link KIND_NAME_PATTERN}); otherwise throws
 * `VERQ_INVALID_ARGUMENT`.
 */
export function checkKindName(value: unknown): string {
  if (typeof value !== "string" || !KIND_NAME_PATTERN.test(value)) {
    fail("VERQ_INVALID_ARGUMENT", "a job kind is a letter, then up to 63 letters, digits or _ . : -");
  }
  return value;
}

/** The most kinds one claim may name. */
export const MAX_CLAIM_KINDS = 100;

/**
 * Returns `value` when it says which kinds a claimer handles: `names`, an array of 0 to
 * {@link MAX_CLAIM_KINDS} kind names ({@link checkKindName}; repeats dropped), and `kindless`, a
 * boolean; at least one kind or `kindless`, since a claimer that handles nothing could claim
 * nothing. Otherwise throws `VERQ_INVALID_ARGUMENT`.
 */
export function checkHandledKinds(value: unknown): HandledKinds {
  const kinds = value as { names?: unknown; kindless?: unknown } | null;
  if (typeof kinds !== "object" || kinds === null || !Array.isArray(kinds.names) || typeof kinds.kindless !== "boolean") {
    fail("VERQ_INVALID_ARGUMENT", "kinds is { names: kind names, kindless: whether jobs without a kind are handled }");
  }
  const names = kinds.names as unknown[];
  if (names.length > MAX_CLAIM_KINDS) fail("VERQ_INVALID_ARGUMENT", `kinds names at most ${MAX_CLAIM_KINDS} kinds`);
  if (names.length === 0 && !kinds.kindless) fail("VERQ_INVALID_ARGUMENT", "kinds must name a kind or take jobs without a kind");
  return { names: [...new Set(names.map(checkKindName))], kindless: kinds.kindless };
}
