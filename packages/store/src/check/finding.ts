/**
 * What `checkStore` can find wrong in a store. Stable names: scripts and monitors match on them,
 * and docs/cli.md says what each means and what to do.
 */
export const FINDING_CODES = [
  /** A stream's versions are not 1, 2, 3, … without a gap (an event lost or a version skipped). */
  "VERSION_GAP",
  /** A stream's next version has a lower global position than the one before it. */
  "POSITION_BACKWARDS",
  /** An event the stream's fold refuses: an unknown type, or a type that cannot come at that place. */
  "EVENT_INVALID",
  /** A claim whose token is not above the job's token, or a redrive or cancel that changed the token. */
  "TOKEN_RESET",
  /** A claim whose token is more than one above the job's token. */
  "TOKEN_SKIP",
  /** A second accepted outcome (completed, retry scheduled, died) for one (job, token), or one after a cancel took that token's lease away. */
  "DOUBLE_FINISH",
  /** An accepted outcome for a token that is not the job's current one. */
  "STALE_FINISH",
  /** A projection row that differs from the fold of its stream. */
  "PROJECTION_MISMATCH",
  /** A stream with events but no projection row. */
  "PROJECTION_MISSING",
  /** A projection row whose stream has no events. */
  "PROJECTION_ORPHAN",
  /** A ledger row that is not DONE (UNKNOWN, FAILED, RECEIVED, SENT) while its GUID's events are gone. */
  "PURGED_UNRESOLVED",
  /** A GUID that a purge audit lists, or a job that a prune audit lists, with events from before that purge or prune still in the log. */
  "PURGE_INCOMPLETE",
  /** A job in the retention archive (`job_archive`) that still has events, or a job a prune audit lists without an archive row. */
  "ARCHIVE_MISMATCH",
  /** A `redrives` audit row without its `job.redriven` event, or one that differs from it, or the reverse. */
  "REDRIVE_AUDIT_MISMATCH",
  /** A subscriber's checkpoint past the newest event of the log. */
  "CHECKPOINT_AHEAD",
] as const;

/** One of {@link FINDING_CODES}. */
export type FindingCode = (typeof FINDING_CODES)[number];

/**
 * One problem `checkStore` found: its code, the stream it concerns as `type/id` (`job/order-42`,
 * `guid/g-1`), and a one-line detail with versions, positions and field names, never payloads.
 */
export interface Finding {
  readonly code: FindingCode;
  readonly stream: string;
  readonly detail: string;
}

/** The line `verq check` prints for a finding: `CODE stream detail`. */
export function formatFinding(finding: Finding): string {
  return `${finding.code} ${finding.stream} ${finding.detail}`;
}

/** Where a check hands each finding as it finds it. */
export type Report = (code: FindingCode, stream: string, detail: string) => void;

/** `type/id`: how a finding names a stream. */
export const streamName = (streamType: string, streamId: string): string => `${streamType}/${streamId}`;
