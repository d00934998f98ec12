/**
 * `@verq/adapters/failpoints`: crash tests of a service's own processes. A named point in the
 * code that exits or kills the process when `VERQ_FAILPOINTS` names it, and does nothing
 * otherwise. Loads nothing but Node.
 *
 * The export list is kept by hand.
 *
 * @packageDocumentation
 */
export { failpoint, parseFailpoints, type FailpointAction } from "../failpoints.ts";
