import type { MutationScores } from "./mutation-scores.ts";

/** One score below its baseline: a file's (by its report path) or the total's (`file` undefined). */
export interface ScoreDrop {
  readonly file: string | undefined;
  readonly baseline: number;
  /** The score now; undefined when the file is in the baseline but no longer in the report. */
  readonly current: number | undefined;
}

/** What a run did to the baseline: the scores that dropped, and those that rose or are new. */
export interface RatchetResult {
  readonly drops: readonly ScoreDrop[];
  readonly raised: readonly { readonly file: string | undefined; readonly from: number | undefined; readonly to: number }[];
}

/**
 * Compares `current` with `baseline`. A file's score or the total below its baseline is a drop,
 * and so is a file of the baseline that the report no longer has (renamed or deleted: the
 * baseline must then be written again, on purpose). A file the baseline does not know yet
 * is not a drop: it counts in the total, which the baseline does hold.
 */
export function ratchet(baseline: MutationScores, current: MutationScores): RatchetResult {
  const drops: ScoreDrop[] = [];
  const raised: { file: string | undefined; from: number | undefined; to: number }[] = [];
  for (const [file, score] of Object.entries(baseline.files)) {
    const now = current.files[file];
    if (now === undefined || now < score) drops.push({ file, baseline: score, current: now });
  }
  for (const [file, score] of Object.entries(current.files)) {
    const before = baseline.files[file];
    if (before === undefined || score > before) raised.push({ file, from: before, to: score });
  }
  if (current.total < baseline.total) drops.push({ file: undefined, baseline: baseline.total, current: current.total });
  else if (current.total > baseline.total) raised.push({ file: undefined, from: baseline.total, to: current.total });
  return { drops, raised };
}
