import type { QueueLag } from "../../../src/files/queue-lag.ts";
import type { JobStats, LedgerStats } from "@verq/store";
import { sampleKey } from "./prometheus-text.ts";

/**
 * Every sample the exposition must hold, written out from `stats()` of the jobs and the ledger
 * and the folder counts: each state, reason and folder by name, each queue and kind of
 * `jobs.groups` (a kindless job's kind `""`, the default queue's kindless jobs always there, no
 * value past a bound), each age from `now`.
 */
export function expectedSamples(jobs: JobStats, ledger: LedgerStats, files: QueueLag | null, now: number): Map<string, number> {
  const expected = new Map<string, number>();
  const put = (name: string, value: number, labels?: Record<string, string>) => expected.set(sampleKey(name, labels), value);
  const groups = jobs.groups.some((g) => g.queue === "default" && g.kind === null)
    ? jobs.groups
    : [
        ...jobs.groups,
        {
          queue: "default",
          kind: null,
          byState: { pending: 0, leased: 0, done: 0, dead: 0 },
          leaseExpiries: 0,
          deadByFailureClass: {},
        },
      ];
  for (const g of groups) {
    const labels = { queue: g.queue, kind: g.kind ?? "" };
    for (const state of ["pending", "leased", "done", "dead"] as const) put("verq_jobs", g.byState[state], { ...labels, state });
    for (const [errorClass, count] of Object.entries(g.deadByFailureClass)) {
      put("verq_jobs_dead_by_failure_class", count, { ...labels, error_class: errorClass === "(none)" ? "" : errorClass });
    }
    put("verq_job_lease_expiries_total", g.leaseExpiries, labels);
  }
  for (const reason of ["permanent", "exhausted", "deadline", "cancelled"] as const)
    put("verq_jobs_dead", jobs.dead.byReason[reason].count, { reason });
  put("verq_jobs_oldest_dead_age_seconds", jobs.dead.oldest === null ? 0 : (now - jobs.dead.oldest.deadSince) / 1_000);
  put("verq_job_stale_finishes_refused_total", jobs.staleFinishesRefused);
  put("verq_job_redrives_total", jobs.redrives);
  for (const state of ["RECEIVED", "SENT", "DONE", "UNKNOWN", "FAILED"] as const)
    put("verq_ledger_entries", ledger.byState[state], { state });
  put("verq_ledger_oldest_age_seconds", ledger.oldestUnknown === null ? 0 : (now - ledger.oldestUnknown.since) / 1_000, {
    state: "UNKNOWN",
  });
  put("verq_ledger_oldest_age_seconds", ledger.oldestFailed === null ? 0 : (now - ledger.oldestFailed.since) / 1_000, {
    state: "FAILED",
  });
  if (files !== null) for (const dir of ["inbox", "processing", "error"] as const) put("verq_files", files[dir], { dir });
  return expected;
}

/** The TYPE of each metric: the `_total` ones are counters, the rest gauges. */
export function expectedTypes(withFiles: boolean): Map<string, string> {
  const names = [
    "verq_jobs",
    "verq_jobs_dead",
    "verq_jobs_dead_by_failure_class",
    "verq_jobs_oldest_dead_age_seconds",
    "verq_job_lease_expiries_total",
    "verq_job_stale_finishes_refused_total",
    "verq_job_redrives_total",
    "verq_ledger_entries",
    "verq_ledger_oldest_age_seconds",
    ...(withFiles ? ["verq_files"] : []),
    "verq_streams",
    "verq_metric_labels_overflow_total",
  ];
  return new Map(names.map((name) => [name, name.endsWith("_total") ? "counter" : "gauge"]));
}
