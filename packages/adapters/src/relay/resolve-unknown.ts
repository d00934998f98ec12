import { classifyInquiry, isGuidError, type CoreInquiryResult } from "@verq/core";
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

/**
 * Settles UNKNOWN entries with the core's inquiry API (SPEC G5). Only entries at least
 * `minAgeMs` old are asked about (the guid machine decides): a younger one may still be in
 * flight, and a "not found" now could be followed by the core processing it a moment later.
 * Found → DONE with the core's answer; a 404 naming the GUID → FAILED; an inquiry error leaves
 * the entry as it is. Looks at up to `limit` UNKNOWN entries, oldest first.
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
    if (!context.ledger.mayInquire(entry, options.minAgeMs)) {
      young.push(entry.guid);
      continue;
    }
    if (options.pace !== undefined && !(await options.pace())) {
      interrupted = true;
      break;
    }
    const result = await context.core.inquire(entry.guid);
    const answer = classifyInquiry(entry.guid, result);
    if (answer === null) {
      errors.push({ guid: entry.guid, reason: describeInquiryError(result) });
      continue;
    }
    const change = await context.ledger.resolve(entry.guid, answer, options.minAgeMs).catch((error: unknown) => {
      if (isGuidError(error, "VERQ_UNKNOWN_GUID")) return null; // gone meanwhile
      throw error;
    });
    if (change === null || !change.accepted) continue; // settled meanwhile by another resolve
    (change.entry.state === "DONE" ? done : failed).push(entry.guid);
  }
  if (!interrupted) options.onProgress?.(entries.length, entries.length);
  return { done, failed, young, errors, ...(interrupted ? { interrupted: true as const } : {}) };
}

function describeInquiryError(result: CoreInquiryResult): string {
  if (result.kind === "failed") return result.reason;
  if (result.status === 404) return "HTTP 404 without the GUID in its body (a wrong URL?)";
  return result.status === 200 ? "HTTP 200 with an answer that is not a valid core answer" : `HTTP ${result.status}`;
}
