/**
 * Exit codes of every `verq` command. Stable: scripts and monitors depend on them.
 * Documented in docs/cli.md.
 */
export const EXIT = {
  /** Done as asked. */
  ok: 0,
  /** A condition the command reports on is not met (e.g. `files lag` over its threshold), or the work failed. */
  failed: 1,
  /** The command line is wrong (unknown option, malformed value). Nothing was changed. */
  usage: 2,
  /** The request was refused by a rule (e.g. a finish with a stale token). Nothing was changed. */
  refused: 3,
  /** A named thing does not exist (unknown job id, unknown GUID, missing file). Nothing was changed. */
  notFound: 4,
  /** Stopped by SIGINT or SIGTERM after the item in progress (bulk commands); a rerun continues. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
