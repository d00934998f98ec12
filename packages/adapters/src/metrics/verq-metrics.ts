import { systemClock, type Clock, type GuidState, type MessageState } from "@verq/core";
import type { VerqStore } from "@verq/store";
import { Counter, Gauge, type Registry } from "prom-client";
import { openQueue } from "../files/queue-dirs.ts";
import { figureReader, type VerqFigures } from "./verq-figures.ts";

/** Options of {@link registerVerqMetrics}. */
export interface VerqMetricsOptions {
  /** The store whose jobs and GUID ledger are measured. */
  readonly store: VerqStore;
  /** The root of a file queue (`verq files init ROOT`) whose folders are counted; none when omitted. */
  readonly files?: string;
  /** The clock the ages are measured with: the system clock. */
  readonly clock?: Clock;
}

/** The names of the metrics {@link registerVerqMetrics} adds, as they appear in the exposition. */
export const VERQ_METRIC_NAMES = [
  "verq_jobs",
  "verq_jobs_dead",
  "verq_jobs_oldest_dead_age_seconds",
  "verq_job_lease_expiries_total",
  "verq_job_stale_finishes_refused_total",
  "verq_job_redrives_total",
  "verq_ledger_entries",
  "verq_ledger_oldest_age_seconds",
  "verq_files",
] as const;

/** The queue folders whose files wait for someone: to be claimed, to be settled, to be fixed and replayed. */
const QUEUE_DIRS = ["inbox", "processing", "error"] as const satisfies readonly MessageState[];

/** The GUID states whose oldest entry waits for an operator: an inquiry (UNKNOWN) or a reprocess (FAILED). */
const WAITING_STATES = ["UNKNOWN", "FAILED"] as const satisfies readonly GuidState[];

/** Seconds from `since` to `now`; 0 for nothing waiting, never negative. */
const ageSeconds = (now: number, since: number | undefined): number =>
  since === undefined ? 0 : Math.max(0, now - since) / 1_000;

/**
 * Adds verq's metrics to `registry` (prom-client): gauges of jobs by state and dead jobs by
 * reason, the age of the oldest dead job, counters of lease expiries, stale finishes refused
 * and redrives, gauges of GUID ledger entries by state and of the oldest UNKNOWN and FAILED
 * entry's age, and, with `files`, the files waiting in `inbox/`, `processing/` and `error/`.
 *
 * Nothing is counted in this process: every figure is read from the store (`JobQueue.stats()`,
 * `GuidLedger.stats()`) and the queue's folders when the registry is scraped, one read per
 * scrape, so every process that registers them reports the same figures. Every labelled series
 * is present, 0 when empty; label values are only states, reasons and folder names, never a job
 * id, a GUID or a payload. An age is 0 when nothing is waiting. A `files` root that is not a
 * file queue throws `VERQ_INVALID_ARGUMENT` here, before anything is registered; registering
 * twice on one registry throws, as prom-client does for any metric name registered twice.
 *
 * @example
 * const registry = new Registry();
 * registerVerqMetrics(registry, { store, files: "/var/spool/orders" });
 * await app.register(metricsPlugin, { registry }); // GET /metrics
 */
export function registerVerqMetrics(registry: Registry, options: VerqMetricsOptions): void {
  if (options.files !== undefined) openQueue(options.files);
  const figures = figureReader({ store: options.store, files: options.files, clock: options.clock ?? systemClock });
  const registers = [registry];

  /** A gauge whose series are set from the figures of the scrape. */
  const gauge = <L extends string>(
    name: (typeof VERQ_METRIC_NAMES)[number],
    help: string,
    labelNames: readonly L[],
    set: (g: Gauge<L>, f: VerqFigures) => void,
  ) =>
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        set(this, await figures());
      },
    });

  /** A counter whose value is a total kept by the store; it only climbs, so it is exposed as a counter. */
  const counter = (name: (typeof VERQ_METRIC_NAMES)[number], help: string, total: (f: VerqFigures) => number) =>
    new Counter({
      name,
      help,
      registers,
      async collect() {
        const value = total(await figures());
        this.reset();
        this.inc(value);
      },
    });

  gauge("verq_jobs", "Jobs by state.", ["state"], (g, f) => {
    for (const [state, count] of Object.entries(f.jobs.byState)) g.set({ state }, count);
  });
  gauge("verq_jobs_dead", "Dead jobs by the reason they died.", ["reason"], (g, f) => {
    for (const [reason, { count }] of Object.entries(f.jobs.dead.byReason)) g.set({ reason }, count);
  });
  gauge("verq_jobs_oldest_dead_age_seconds", "Seconds since the oldest dead job died; 0 when none is dead.", [], (g, f) =>
    g.set(ageSeconds(f.now, f.jobs.dead.oldest?.deadSince)),
  );
  counter(
    "verq_job_lease_expiries_total",
    "Claims that took a job over from a worker whose lease had expired.",
    (f) => f.jobs.leaseExpiries,
  );
  counter(
    "verq_job_stale_finishes_refused_total",
    "Finishes refused because the token was stale or the job no longer leased.",
    (f) => f.jobs.staleFinishesRefused,
  );
  counter("verq_job_redrives_total", "Redrives of dead jobs recorded in the audit trail.", (f) => f.jobs.redrives);
  gauge("verq_ledger_entries", "GUID ledger entries by state.", ["state"], (g, f) => {
    for (const [state, count] of Object.entries(f.ledger.byState)) g.set({ state }, count);
  });
  gauge(
    "verq_ledger_oldest_age_seconds",
    "Seconds since the oldest UNKNOWN or FAILED ledger entry last changed; 0 when none is in that state.",
    ["state"],
    (g, f) => {
      const since = { UNKNOWN: f.ledger.oldestUnknown?.since, FAILED: f.ledger.oldestFailed?.since };
      for (const state of WAITING_STATES) g.set({ state }, ageSeconds(f.now, since[state]));
    },
  );
  if (options.files !== undefined) {
    gauge("verq_files", "Files in the file queue's inbox, processing and error folders.", ["dir"], (g, f) => {
      if (f.files === null) return;
      for (const dir of QUEUE_DIRS) g.set({ dir }, f.files[dir]);
    });
  }
}
