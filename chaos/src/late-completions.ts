import type { Recorder, Report } from "./recorder.ts";

/**
 * Successes a queue accepted from a handler whose attempt had been superseded, judged from
 * what the handlers and the workers told the recorder. A success `s` (a "done" or "accepted"
 * report of attempt `a`) is late when a run of a later attempt of the same job had already
 * started when `s` arrived, and no success of a later attempt had arrived before it (after
 * which the queue would have had nothing left to complete). Counted once per job.
 *
 * For BullMQ `successes` are the "accepted" reports (its `completed` event fires only after it
 * recorded the success), so this counts what it accepted. For graphile-worker they are the
 * "done" reports: its completion deletes the job by id whatever holds the lock, so a success
 * that reached the queue while the job was still there was accepted.
 */
export function lateSuccesses(recorder: Recorder, successes: readonly Report[]): number {
  const runsByJob = groupByJob(recorder.runs);
  const successesByJob = groupByJob(successes);
  let late = 0;
  for (const [job, mine] of successesByJob) {
    const runs = runsByJob.get(job) ?? [];
    const stale = mine.some(
      (s) => runs.some((r) => r.attempt > s.attempt && r.at <= s.at) && !mine.some((o) => o.attempt > s.attempt && o.at < s.at),
    );
    if (stale) late++;
  }
  return late;
}

/** Reports by job id, in the order they arrived. */
export function groupByJob(reports: readonly Report[]): Map<string, Report[]> {
  const byJob = new Map<string, Report[]>();
  for (const r of reports) {
    const list = byJob.get(r.job);
    if (list === undefined) byJob.set(r.job, [r]);
    else list.push(r);
  }
  return byJob;
}
