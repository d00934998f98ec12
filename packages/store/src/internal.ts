/**
 * Store pieces that verq's own test suites drive directly, imported as `@verq/store/internal`:
 * the pieces with which the jobs and relay property suites' mutants read claim candidates and
 * claim and look up GUIDs. The parts a test may replace in a service are ordinary, documented
 * options of that service (`JobQueueOptions.decider`, `GuidLedgerOptions.claimer`, …).
 *
 * @internal For verq's own test suites; no stability promise: names and signatures here change
 * with the store's SQL, without notice and without a major version.
 * @packageDocumentation
 */

export { selectClaimCandidates } from "./sql/jobs/selectClaimCandidates.ts";
export { commitGuidCreations, guidStream, type GuidChange } from "./streams/guid-stream.ts";
export { selectGuidEntry } from "./sql/ledger/selectGuidEntry.ts";
export { selectGuidEntriesByState, selectGuidEntriesOldestFirst, type LedgerCursor } from "./sql/ledger/selectGuidEntries.ts";
