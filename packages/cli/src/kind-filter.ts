import { VerqError, checkKindName } from "@verq/core";
import { JOB_STATS_NONE } from "@verq/store";

/**
 * `--kind` of the commands that read jobs (`jobs list`, `jobs dead`, `jobs stats`): a job kind's
 * name (a letter, then up to 63 letters, digits or `_ . : -`), or `(none)` for the jobs without
 * a kind (`null` to the queue's reads). Anything else is `VERQ_INVALID_ARGUMENT` (exit 2), before
 * the store is opened.
 */
export function parseKindFilter(text: string, what = "--kind"): string | null {
  if (text === JOB_STATS_NONE) return null;
  try {
    return checkKindName(text);
  } catch {
    throw new VerqError(
      "VERQ_INVALID_ARGUMENT",
      `${what} must be a job kind (a letter, then up to 63 letters, digits or _ . : -) or ${JOB_STATS_NONE}; got ${JSON.stringify(text.slice(0, 80))}`,
    );
  }
}
