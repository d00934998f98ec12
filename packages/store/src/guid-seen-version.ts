import { VerqError, type GuidEntry } from "@verq/core";

/*
 * The store's concurrency check of an operator's change of a ledger entry (`resolve`,
 * `reprocess` given the version the operator saw), as `VERQ_JOB_CHANGED` is for a job's.
 */

/** `VERQ_INVALID_ARGUMENT` unless the seen version is absent or a whole number from 1. */
export function checkSeenVersion(expectedVersion: number | undefined): void {
  if (expectedVersion !== undefined && !(Number.isSafeInteger(expectedVersion) && expectedVersion >= 1)) {
    throw new VerqError("VERQ_INVALID_ARGUMENT", "the expected version must be a whole number from 1");
  }
}

/**
 * Throws `VERQ_ENTRY_CHANGED` when an existing entry is no longer at the version the operator
 * saw (`GuidLedger.resolve` and `reprocess` check it in their transaction; the relay's
 * `resolveOne` also before it asks the core, so a stale act never reaches the core). Not a version conflict, which the store decides again: what the operator saw is gone, and
 * only they can decide again. A GUID without an entry (version 0) is left to the machine's
 * `unknown-guid`.
 */
export function entryUnchangedSince(expectedVersion: number | undefined, before: GuidEntry): void {
  if (expectedVersion === undefined || before.version === 0 || before.version === expectedVersion) return;
  throw new VerqError(
    "VERQ_ENTRY_CHANGED",
    `guid ${before.guid} is at version ${before.version}, not ${expectedVersion} as when it was read; nothing was done. Read it again and decide again`,
  );
}
