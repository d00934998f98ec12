/**
 * Store pieces that verq's own test suites drive directly, imported as `@verq/store/internal`:
 * the seams through which the mutation tests give a queue or a ledger a broken decider or claim,
 * and the pieces with which the relay property suite's mutants claim and look up GUIDs.
 *
 * @internal For verq's own test suites; no stability promise: names and signatures here change
 * with the store's SQL, without notice and without a major version.
 * @packageDocumentation
 */

export {
  withGuidSeams,
  withJobDecider,
  withJobSeams,
  withMessageDecider,
  withScheduleDecider,
  withSubscriptionSeams,
  type GuidClaimer,
  type GuidLedgerSeams,
  type ClaimCandidates,
  type JobQueueSeams,
  type SubscriptionDelivery,
  type SubscriptionSeams,
} from "./seams.ts";
export { selectClaimCandidates } from "./sql/jobs/selectClaimCandidates.ts";
export { commitGuidCreations, guidStream, type GuidChange } from "./streams/guid-stream.ts";
export { selectGuidEntry } from "./sql/ledger/selectGuidEntry.ts";
export { selectGuidEntriesByState, selectGuidEntriesOldestFirst, type LedgerCursor } from "./sql/ledger/selectGuidEntries.ts";
