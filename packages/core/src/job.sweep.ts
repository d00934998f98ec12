import type { DeadReason } from "./job.types.ts";

/**
 * The dead reasons a sweep over dead jobs (a redrive of every dead job, a bulk redrive) passes
 * over: `cancelled` when the sweep names no reason, since an operator's cancel is not undone by a
 * sweep; none when it names one (it then takes only that reason, `cancelled` included).
 */
export function sweepSkippedReasons(reason: DeadReason | undefined): readonly DeadReason[] {
  return reason === undefined ? CANCELLED_ONLY : [];
}

const CANCELLED_ONLY: readonly DeadReason[] = Object.freeze(["cancelled"]);
