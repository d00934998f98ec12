/**
 * Store pieces that verq's own test suites drive directly (the relay property suite's mutants
 * claim and look up GUIDs with the store's own SQL), imported as `@verq/store/internal`.
 *
 * @internal For verq's own test suites; no stability promise: names and signatures here change
 * with the store's SQL, without notice and without a major version.
 * @packageDocumentation
 */

export { claimGuid } from "./sql/ledger/claimGuid.ts";
export { selectGuidEntry } from "./sql/ledger/selectGuidEntry.ts";
export { selectGuidEntriesByState, selectGuidEntriesChangedBefore, type LedgerCursor } from "./sql/ledger/selectGuidEntries.ts";
