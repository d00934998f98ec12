import { VerqError, type GuidEntry } from "@verq/core";

/*
 * The store's expected-version check of an operator's act (ADR 0019): the act carries the
 * version of the job or ledger entry the operator saw, and one that moved on since is refused
 * inside the act's transaction, so that whatever was decided rolls back. Not a version conflict,
 * which the store decides again: what the operator saw is gone, and only they can decide again.
 */

/**
 * What an operator saw of a job or a ledger entry when they chose to act on it: its version (the
 * number of its events). Given, an act on one that has moved on since (a claim, a finish, another
 * operator's act) is refused with `VERQ_JOB_CHANGED` or `VERQ_ENTRY_CHANGED`, changing nothing.
 */
export interface SeenVersion {
  readonly expectedVersion?: number | undefined;
}

/** `VERQ_INVALID_ARGUMENT` unless the seen version is absent or a whole number from 1. */
export function checkSeenVersion(expectedVersion: number | undefined): void {
  if (expectedVersion !== undefined && !(Number.isSafeInteger(expectedVersion) && expectedVersion >= 1)) {
    throw new VerqError("VERQ_INVALID_ARGUMENT", "the expected version must be a whole number from 1");
  }
}

/** Throws `code` for `subject` (as a message names it) when `version` is not the one seen. */
function unchangedSince(
  code: "VERQ_JOB_CHANGED" | "VERQ_ENTRY_CHANGED",
  subject: string,
  expectedVersion: number | undefined,
  version: number,
): void {
  if (expectedVersion === undefined || version === expectedVersion) return;
  throw new VerqError(
    code,
    `${subject} is at version ${version}, not ${expectedVersion} as when it was read; nothing was done. Read it again and decide again`,
  );
}

/** `VERQ_JOB_CHANGED` when job `id` is at `version`, not at the one the operator saw. */
export function jobUnchangedSince(expectedVersion: number | undefined, id: string, version: number): void {
  unchangedSince("VERQ_JOB_CHANGED", `job ${id}`, expectedVersion, version);
}

/**
 * `VERQ_ENTRY_CHANGED` when an existing entry is no longer at the version the operator saw
 * (`GuidLedger.resolve` and `reprocess` check it in their transaction; the relay's `resolveOne`
 * also before it asks the core, so a stale act never reaches the core). A GUID without an entry
 * (version 0) is left to the machine's `unknown-guid`.
 */
export function entryUnchangedSince(expectedVersion: number | undefined, before: GuidEntry): void {
  if (before.version !== 0) unchangedSince("VERQ_ENTRY_CHANGED", `guid ${before.guid}`, expectedVersion, before.version);
}
