/** Shared between `crash-writer.ts` (the child) and the restart test (the parent). */

/** The id the child writes in the transaction it never commits. */
export const UNCOMMITTED_JOB = "crash-uncommitted";

/** The exit code of the crash, as in SPEC J8. */
export const CRASH_EXIT_CODE = 73;

/** What the child committed before it exited: each job as `queue.get` returned it, and counts. */
export interface CrashReport {
  readonly jobs: Record<string, unknown>;
  readonly eventCount: number;
  readonly redrives: number;
  readonly clockNow: number;
}
