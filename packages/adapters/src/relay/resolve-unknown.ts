import { classifyInquiry, isGuidError, type CoreInquiryResult, type GuidRefusal, type LedgerEntry } from "@verq/core";
import { entryUnchangedSince, type SeenVersion } from "@verq/store";
import type { BulkPacing } from "./bulk-pacing.ts";
import type { RelayContext } from "./relay-context.ts";

/** What one resolve run did (SPEC G5). */
export interface ResolveReport {
  /** UNKNOWN → DONE: the core had processed the transfer; its answer is now stored. */
  readonly done: readonly string[];
  /** UNKNOWN → FAILED: the core has no record; safe to reprocess. */
  readonly failed: readonly string[];
  /** UNKNOWN entries younger than the min age: not asked, not changed. */
  readonly young: readonly string[];
  /** Inquiries that failed or gave no usable answer: the entry is left UNKNOWN. */
  readonly errors: readonly { readonly guid: string; readonly reason: string }[];
  /** Present (true) only when `pace` stopped the run before every listed entry was handled. */
  readonly interrupted?: true;
}

/** What resolving one entry did. */
export type ResolveOneResult =
  /** Asked, and settled: DONE (found, with the core's answer) or FAILED (not found). */
  | { readonly outcome: "settled"; readonly entry: LedgerEntry }
  /** Not asked: the guid machine would not let an answer settle the entry now (not UNKNOWN, or younger than the min age). */
  | { readonly outcome: "not-asked"; readonly entry: LedgerEntry }
  /** Asked, and the inquiry failed or gave no usable answer (`reason`): the entry is left as it was. */
  | { readonly outcome: "inquiry-error"; readonly reason: string; readonly entry: LedgerEntry }
  /** Asked, and the guid machine refused the answer: another resolve settled the entry meanwhile. */
  | { readonly outcome: "refused"; readonly refusal: GuidRefusal; readonly entry: LedgerEntry }
  /** The ledger has no entry for the GUID. */
  | { readonly outcome: "gone" };

/** The settings of one resolve: the min age, and optionally the version of the entry the operator saw. */
export type ResolveOneOptions = { readonly minAgeMs: number } & SeenVersion;

/**
 * Settles one UNKNOWN entry with the core's inquiry (SPEC G5), as {@link resolveUnknown} does for
 * each: asked only when the guid machine would let the answer settle it now (UNKNOWN, at least
 * `minAgeMs` old); found → DONE, a 404 naming the GUID → FAILED, an inquiry error leaves it as it
 * is. Given `expectedVersion`, an entry that moved on since is `VERQ_ENTRY_CHANGED`, nothing changed.
 */
export async function resolveOne(context: RelayContext, guid: string, options: ResolveOneOptions): Promise<ResolveOneResult> {
  const entry = await context.ledger.get(guid);
  return entry === null ? { outcome: "gone" } : resolveEntry(context, entry, options);
}

async function resolveEntry(context: RelayContext, entry: LedgerEntry, options: ResolveOneOptions): Promise<ResolveOneResult> {
  // Before the core is asked and before the machine's rule: what the operator saw is gone.
  entryUnchangedSince(options.expectedVersion, entry);
  if (!context.ledger.mayInquire(entry, options.minAgeMs)) return { outcome: "not-asked", entry };
  const result = await context.core.inquire(entry.guid);
  const answer = classifyInquiry(entry.guid, result);
  if (answer === null) return { outcome: "inquiry-error", reason: describeInquiryError(result), entry };
  const seen = options.expectedVersion === undefined ? {} : { expectedVersion: options.expectedVersion };
  const change = await context.ledger.resolve(entry.guid, answer, options.minAgeMs, seen).catch((error: unknown) => {
    if (isGuidError(error, "VERQ_UNKNOWN_GUID")) return null; // gone meanwhile
    throw error;
  });
  if (change === null) return { outcome: "gone" };
  if (!change.accepted) return { outcome: "refused", refusal: change.refusal, entry: change.entry };
  return { outcome: "settled", entry: change.entry };
}

/**
 * Settles UNKNOWN entries with the core's inquiry API (SPEC G5). Only entries at least
 * `minAgeMs` old are asked about (the guid machine decides): a younger one may still be in
 * flight, and a "not found" now could be followed by the core processing it a moment later.
 * Found → DONE with the core's answer; a 404 naming the GUID → FAILED; an inquiry error leaves
 * the entry as it is. Looks at up to `limit` UNKNOWN entries, oldest first, each as {@link resolveOne}.
 */
export async function resolveUnknown(
  context: RelayContext,
  options: { minAgeMs: number; limit?: number } & BulkPacing,
): Promise<ResolveReport> {
  const done: string[] = [];
  const failed: string[] = [];
  const young: string[] = [];
  const errors: { guid: string; reason: string }[] = [];
  const entries = await context.ledger.list(["UNKNOWN"], options.limit ?? 1_000);
  let handled = 0;
  let interrupted = false;
  for (const entry of entries) {
    options.onProgress?.(handled++, entries.length);
    // Only the entries that will be asked about take a slot of the pace.
    if (!context.ledger.mayInquire(entry, options.minAgeMs)) {
      young.push(entry.guid);
      continue;
    }
    if (options.pace !== undefined && !(await options.pace())) {
      interrupted = true;
      break;
    }
    const result = await resolveEntry(context, entry, { minAgeMs: options.minAgeMs });
    if (result.outcome === "not-asked") young.push(entry.guid);
    else if (result.outcome === "inquiry-error") errors.push({ guid: entry.guid, reason: result.reason });
    else if (result.outcome === "settled") (result.entry.state === "DONE" ? done : failed).push(entry.guid);
    // Gone, or settled meanwhile by another resolve: neither is this run's.
  }
  if (!interrupted) options.onProgress?.(entries.length, entries.length);
  return { done, failed, young, errors, ...(interrupted ? { interrupted: true as const } : {}) };
}

function describeInquiryError(result: CoreInquiryResult): string {
  if (result.kind === "failed") return result.reason;
  if (result.status === 404) return "HTTP 404 without the GUID in its body (a wrong URL?)";
  return result.status === 200 ? "HTTP 200 with an answer that is not a valid core answer" : `HTTP ${result.status}`;
}
