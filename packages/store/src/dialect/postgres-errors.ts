import { isVerqError, VerqError } from "@verq/core";
import type { ErrorClassifier } from "./error-classifier.ts";

/** The SQLSTATE of a PostgreSQL error, if `error` is one. */
export function postgresCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * The verq error a PostgreSQL error stands for: SQLSTATE 53100 (`disk_full`: the server could not
 * extend a file; the statement failed and its transaction is rolled back) is `VERQ_STORE_FULL`.
 */
export function postgresStoreError(error: unknown): VerqError | undefined {
  if (postgresCode(error) !== "53100") return undefined;
  return new VerqError(
    "VERQ_STORE_FULL",
    "PostgreSQL has no disk space left for this write (SQLSTATE 53100), and nothing of it was kept. Free space on the server and try again.",
    { cause: error },
  );
}

/**
 * SQLSTATEs after which the whole transaction is run again: serialization failure, deadlock
 * detected, lock not available.
 */
const RETRYABLE = new Set(["40001", "40P01", "55P03"]);

/** What PostgreSQL's errors mean to the store. */
export const postgresErrors: ErrorClassifier = {
  isUniqueViolation: (error) => postgresCode(error) === "23505",
  isBusy(error: unknown): boolean {
    const code = postgresCode(error);
    // Several writers run at once here: a stream another transaction moved meanwhile is decided again.
    return (code !== undefined && RETRYABLE.has(code)) || isVerqError(error, "VERQ_VERSION_CONFLICT");
  },
  storeError: postgresStoreError,
};
