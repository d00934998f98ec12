import { isGuidError, type GuidRefusal, type GuidState } from "@verq/core";
import type { SeenVersion } from "@verq/store";
import type { BulkPacing } from "./bulk-pacing.ts";
import { deliver, type RelayContext } from "./relay-context.ts";

/** What reprocessing one entry did. */
export type ReprocessItem =
  /** Sent again with the same GUID and the stored request; `state` and `code` after the call. */
  | {
      readonly guid: string;
      readonly outcome: "sent";
      readonly state: GuidState;
      readonly code: string;
      readonly attempts: number;
    }
  /** Not sent: `not-failed` (UNKNOWN is never reprocessed) or `attempts-exhausted` (at the cap). */
  | {
      readonly guid: string;
      readonly outcome: "refused";
      readonly refusal: GuidRefusal;
      readonly state: GuidState;
      readonly attempts: number;
    }
  /** The entry was deleted meanwhile (it cannot be: purge takes DONE only; kept for robustness). */
  | { readonly guid: string; readonly outcome: "gone" };

/** What one reprocess run did (SPEC G6). */
export interface ReprocessReport {
  readonly items: readonly ReprocessItem[];
  /** Sent again and now DONE. */
  readonly done: number;
  /** Sent again and still not DONE (FAILED again, or UNKNOWN). */
  readonly notDone: number;
  /** FAILED entries at the attempt cap: left for a human. */
  readonly atCap: number;
  /** UNKNOWN entries seen and skipped: they are settled by resolve, never reprocessed. */
  readonly skippedUnknown: number;
  /** Present (true) only when `pace` stopped the run before every listed entry was handled. */
  readonly interrupted?: true;
}

/** The settings of one reprocess: the attempt cap, and optionally the version of the entry the operator saw. */
export type ReprocessOneOptions = { readonly maxAttempts: number } & SeenVersion;

/**
 * Reprocesses one entry (SPEC G6), as {@link reprocessFailed} does for each: the guid machine
 * decides (FAILED and below the cap → SENT, one more attempt); then the stored request goes to
 * the core under the same GUID, and the outcome is recorded as for a channel request. Given
 * `expectedVersion`, an entry that moved on since is `VERQ_ENTRY_CHANGED`, nothing sent or changed.
 */
export async function reprocessOne(context: RelayContext, guid: string, options: ReprocessOneOptions): Promise<ReprocessItem> {
  const seen = options.expectedVersion === undefined ? {} : { expectedVersion: options.expectedVersion };
  const change = await context.ledger.reprocess(guid, options.maxAttempts, seen).catch((error: unknown) => {
    if (isGuidError(error, "VERQ_UNKNOWN_GUID")) return null;
    throw error;
  });
  if (change === null) return { guid, outcome: "gone" };
  if (!change.accepted) {
    return { guid, outcome: "refused", refusal: change.refusal, state: change.entry.state, attempts: change.entry.attempts };
  }
  const after = await deliver(context, change.entry);
  return { guid, outcome: "sent", state: after.state, code: after.code, attempts: after.attempts };
}

/**
 * Reprocesses FAILED entries (SPEC G6): only FAILED, with the same GUID and the stored request,
 * while `attempts < maxAttempts`; never UNKNOWN (a timed-out transfer may have been processed).
 * It looks at FAILED and UNKNOWN entries, oldest first, up to `limit`, and lets the machine
 * refuse the UNKNOWN ones, so that the report says how many wait for resolve. Each is {@link reprocessOne}.
 */
export async function reprocessFailed(
  context: RelayContext,
  options: { maxAttempts: number; limit?: number } & BulkPacing,
): Promise<ReprocessReport> {
  const items: ReprocessItem[] = [];
  const entries = await context.ledger.list(["FAILED", "UNKNOWN"], options.limit ?? 1_000);
  let interrupted = false;
  for (const entry of entries) {
    options.onProgress?.(items.length, entries.length);
    // Every listed entry takes a slot: the machine, not this loop, tells which ones are sent.
    if (options.pace !== undefined && !(await options.pace())) {
      interrupted = true;
      break;
    }
    items.push(await reprocessOne(context, entry.guid, { maxAttempts: options.maxAttempts }));
  }
  if (!interrupted) options.onProgress?.(entries.length, entries.length);
  const sent = items.filter((i) => i.outcome === "sent");
  const refused = items.filter((i) => i.outcome === "refused");
  return {
    items,
    done: sent.filter((i) => i.state === "DONE").length,
    notDone: sent.filter((i) => i.state !== "DONE").length,
    atCap: refused.filter((i) => i.refusal === "attempts-exhausted").length,
    skippedUnknown: refused.filter((i) => i.state === "UNKNOWN").length,
    ...(interrupted ? { interrupted: true as const } : {}),
  };
}
