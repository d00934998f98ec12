import type { GuidEntry } from "./guid.types.ts";

/**
 * True when `entry` was last changed at least `ms` ago. Every age rule of the ledger uses it:
 * the inquiry min age (G5), the recovery sweep limit and the retention (G7). At exactly `ms`
 * the entry is old enough: `--min-age` is the core's longest processing time, so at that
 * instant no earlier send can still be in flight.
 */
export function isOldEnough(entry: Pick<GuidEntry, "updatedAt">, now: number, ms: number): boolean {
  return now - entry.updatedAt >= ms;
}

/**
 * SPEC G7: the retention must be strictly longer than the channel's longest resend window;
 * otherwise a resend that arrives after the purge would be processed as a new transfer.
 */
export function retentionCoversResendWindow(retentionMs: number, resendWindowMs: number): boolean {
  return retentionMs > resendWindowMs;
}
