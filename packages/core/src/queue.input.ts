import { VerqError } from "./errors.ts";
import { checkIdentifier } from "./job.input.ts";

/** The lowest and highest priority a job may have; 0 is the default. */
export const MIN_PRIORITY = -1_000;
export const MAX_PRIORITY = 1_000;
/** The largest global concurrency limit a queue may have. */
export const MAX_QUEUE_LIMIT = 1_000_000;

/**
 * Returns `value` when it is a queue name: an identifier (1 to 256 printable characters, see
 * `checkIdentifier`); otherwise throws `VERQ_INVALID_ARGUMENT`.
 */
export function checkQueueName(value: unknown): string {
  return checkIdentifier(value, "a queue name", "VERQ_INVALID_ARGUMENT");
}

/** Whether `value` is a queue name by the rule of {@link checkQueueName} (for guards, which answer rather than throw). */
export function isValidQueueName(value: unknown): boolean {
  try {
    checkQueueName(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Returns `value` when it is a priority: a whole number from {@link MIN_PRIORITY} to
 * {@link MAX_PRIORITY}; otherwise throws `VERQ_INVALID_ARGUMENT`.
 */
export function checkPriority(value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < MIN_PRIORITY || value > MAX_PRIORITY) {
    throw new VerqError("VERQ_INVALID_ARGUMENT", `a priority must be a whole number from ${MIN_PRIORITY} to ${MAX_PRIORITY}`);
  }
  return value;
}

/**
 * Returns `value` when it is a queue limit: a whole number from 1 to {@link MAX_QUEUE_LIMIT}, or
 * `null` (no limit); otherwise throws `VERQ_INVALID_ARGUMENT`.
 */
export function checkQueueLimit(value: unknown): number | null {
  if (value === null) return null;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1 || value > MAX_QUEUE_LIMIT) {
    throw new VerqError(
      "VERQ_INVALID_ARGUMENT",
      `maxLeased must be a whole number from 1 to ${MAX_QUEUE_LIMIT}, or null for no limit`,
    );
  }
  return value;
}
