/**
 * `@verq/adapters/operators`: the operators' tools over a store, as the `verq` CLI runs them: a
 * bulk redrive of dead jobs (filtered, paced, one at a time under the bulk-redrive lock) and the
 * rate that paces it. Loads @verq/core and @verq/store only.
 *
 * The export list is kept by hand: everything else under `src/operators` may change at any time.
 *
 * @packageDocumentation
 */
export {
  bulkFilter,
  bulkRedrive,
  bulkRunning,
  deadJobs,
  type BulkRedriveCounts,
  type BulkRedriveOptions,
  type BulkRedriveReport,
} from "./bulk-redrive.ts";
export { Pacer, formatRate, parseRate, type Rate } from "./rate.ts";
