import type { JobRefusal } from "./job.machine.ts";
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

/**
 * Whether the machine's refusal of one redrive ends a sweep over dead jobs (SPEC J7): once the
 * window's redrives reach the limit (`rate-limited`), every later job of the sweep would be
 * refused the same way, so none is tried and they are reported as deferred. Any other refusal is
 * an error of that job's redrive, not the end of the sweep.
 */
export function endsRedriveSweep(refusal: JobRefusal): boolean {
  return refusal === "rate-limited";
}
