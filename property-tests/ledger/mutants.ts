import { createGuidDecider, guidMachine, type GuidDecider } from "@verq/core";

/**
 * Deliberately broken guid machines, each breaking one rule that moved from the GUID ledger into
 * the machine; `mutants.spec.ts` asserts that the ledger property fails on every one, and by
 * which check.
 */
export const guidMutants: Readonly<Record<string, GuidDecider>> = {
  /**
   * G7 broken: purge ignores the retention (the `olderThanRetention` guard, once the service's
   * own age filter), so an entry of any age is decided as old enough. Caught (CI seed) as:
   * receive(g0) → purge(retention 500): the young RECEIVED entry is refused as not DONE
   * instead of too young and counted as kept although older than the retention: "[purge result]
   * purge answered {…"kept":{"RECEIVED":1,…}}, expected {…"kept":{"RECEIVED":0,…}}"; a young DONE
   * entry is purged where the machine decides nothing: "[purge events]".
   */
  "purge ignores retention": createGuidDecider(guidMachine.provide({ guards: { olderThanRetention: () => true } })),
  /**
   * G7 broken: purge takes any retention (the `retentionCoversResendWindow` guard, once the
   * service's own check before the scan). Caught (CI seed) as: receive(g0) → purge(retention 0,
   * resend window 0): the purge runs where the machine refuses it: "[purge result] purge answered
   * {"purged":0,…}, expected {"error":"VERQ_PURGE_RETENTION_TOO_SHORT"}"; with an old DONE entry
   * it deletes what the machine keeps: "[purge events]".
   */
  "purge takes a retention shorter than the resend window": createGuidDecider(
    guidMachine.provide({ guards: { retentionCoversResendWindow: () => true } }),
  ),
  /**
   * Creation broken: the first receipt takes anything as a GUID (the `validGuid` guard of NEW,
   * once the service's own check). Caught as: receive("g 1"): the ledger creates a stream the
   * machine refuses (invalid-guid): "[receive events] receive of "g 1" (NEW, v0) left 1 events".
   */
  "a receipt takes any GUID": createGuidDecider(guidMachine.provide({ guards: { validGuid: () => true } })),
};
