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

/**
 * SQLSTATEs of a connection that is gone or cannot be used for writing: the server was shut
 * down or crashed (57P01-57P03), the connection broke (class 08), or it reaches a server that is
 * in recovery, a replica a failover left it on (25006 `read_only_sql_transaction`).
 */
const CONNECTION_LOST = new Set(["57P01", "57P02", "57P03", "08000", "08001", "08003", "08004", "08006", "25006"]);

/** The socket errors of a connection that broke or could not be made. */
const SOCKET_LOST = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ECONNABORTED"]);

/**
 * What `pg` says, without a code, when the connection ended under a query, could not be made
 * in time, or was used after it broke.
 */
const LOST_MESSAGES = [
  "Connection terminated",
  "connection timeout",
  "timeout exceeded when trying to connect",
  "Client has encountered a connection error and is not queryable",
  "Client was closed and is not queryable",
];

/** True when `error` means the connection to the server was lost or could not be had (see {@link ErrorClassifier.isConnectionLost}). */
export function isPostgresConnectionLost(error: unknown): boolean {
  const code = postgresCode(error);
  if (code !== undefined) return CONNECTION_LOST.has(code);
  if (typeof error !== "object" || error === null) return false;
  const socket = (error as { code?: unknown }).code;
  if (typeof socket === "string" && SOCKET_LOST.has(socket)) return true;
  const message = (error as { message?: unknown }).message;
  return typeof message === "string" && LOST_MESSAGES.some((text) => message.includes(text));
}

/** What PostgreSQL's errors mean to the store. */
export const postgresErrors: ErrorClassifier = {
  isUniqueViolation: (error) => postgresCode(error) === "23505",
  isBusy(error: unknown): boolean {
    const code = postgresCode(error);
    // Several writers run at once here: a stream another transaction moved meanwhile is decided again.
    return (code !== undefined && RETRYABLE.has(code)) || isVerqError(error, "VERQ_VERSION_CONFLICT");
  },
  isConnectionLost: isPostgresConnectionLost,
  isReadOnly: (error) => postgresCode(error) === "25006",
  storeError: postgresStoreError,
};
