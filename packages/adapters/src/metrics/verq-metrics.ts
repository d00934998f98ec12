import { systemClock, type Clock, type GuidState, type MessageState } from "@verq/core";
import type { VerqStore } from "@verq/store";
import { Counter, Gauge, type Registry } from "prom-client";
import { openQueue } from "../files/queue-dirs.ts";
import { checkBound, overflowCounter, OVERFLOW_METRIC_NAME } from "./label-bounds.ts";
import type { LabelledGroups } from "./labelled-groups.ts";
import type { LabelledStreams } from "./stream-figures.ts";
import { figureReader, type VerqFigures } from "./verq-figures.ts";

/** Options of {@link registerVerqMetrics}. */
export interface VerqMetricsOptions {
  /** The store whose jobs and GUID ledger are measured. */
  readonly store: VerqStore;
  /** The root of a file queue (`verq files init ROOT`) whose folders are counted; none when omitted. */
  readonly files?: string;
  /** The clock the ages are measured with: the system clock. */
  readonly clock?: Clock;
  /**
   * The most distinct queues, kinds and failure classes a metric labels by their own names: 100
   * each. Past the bound, the values after the first ones by name are labelled `_other` (summed),
   * and each scrape adds the number of values it folded to `verq_metric_labels_overflow_total`.
   */
  readonly maxQueues?: number;
  readonly maxKinds?: number;
  readonly maxErrorClasses?: number;
  /**
   * The most distinct stream types `verq_streams` labels by their own names, and the most states
   * of each: 100 each, folded past the bound as the other labels are.
   */
  readonly maxStreamTypes?: number;
  readonly maxStreamStates?: number;
}

/** The names of the metrics {@link registerVerqMetrics} adds, as they appear in the exposition. */
export const VERQ_METRIC_NAMES = [
  "verq_jobs",
  "verq_jobs_dead",
  "verq_jobs_dead_by_failure_class",
  "verq_jobs_oldest_dead_age_seconds",
  "verq_job_lease_expiries_total",
  "verq_job_stale_finishes_refused_total",
  "verq_job_redrives_total",
  "verq_ledger_entries",
  "verq_ledger_oldest_age_seconds",
  "verq_files",
  "verq_streams",
  OVERFLOW_METRIC_NAME,
] as const;

/** The metrics labelled by queue and kind, and the labels each is bounded on. */
const BOUNDED_LABELS = {
  verq_jobs: ["queue", "kind"],
  verq_job_lease_expiries_total: ["queue", "kind"],
  verq_jobs_dead_by_failure_class: ["queue", "kind", "error_class"],
  verq_streams: ["stream_type", "state"],
} as const;

/** The queue folders whose files wait for someone: to be claimed, to be settled, to be fixed and replayed. */
const QUEUE_DIRS = ["inbox", "processing", "error"] as const satisfies readonly MessageState[];

/** The GUID states whose oldest entry waits for an operator: an inquiry (UNKNOWN) or a reprocess (FAILED). */
const WAITING_STATES = ["UNKNOWN", "FAILED"] as const satisfies readonly GuidState[];

/** Seconds from `since` to `now`; 0 for nothing waiting, never negative. */
const ageSeconds = (now: number, since: number | undefined): number =>
  since === undefined ? 0 : Math.max(0, now - since) / 1_000;

/**
 * Adds verq's metrics to `registry` (prom-client): gauges of jobs by queue, kind and state, dead
 * jobs by reason and by queue, kind and the class of their last failure, the age of the oldest
 * dead job, counters of lease expiries (by queue and kind), stale finishes refused and redrives,
 * gauges of GUID ledger entries by state and of the oldest UNKNOWN and FAILED entry's age, of
 * the streams of each declared stream type by state (`verq_streams{stream_type,state}`, every
 * type in the generic projection: no definition is needed), and, with `files`, the files waiting
 * in `inbox/`, `processing/` and `error/`.
 *
 * Nothing is counted in this process: every figure is read from the store (`JobQueue.stats()`,
 * `GuidLedger.stats()`, `stream_states`) and the queue's folders when the registry is scraped,
 * one read per scrape, so every process that registers them reports the same figures. Label
 * values are only states, reasons, folder names, queue and kind names, failure classes and stream
 * types, never a job id, a GUID, a stream id or a payload; jobs without a kind have the kind `""`, dead jobs with no recorded failure the
 * error class `""`. Queues, kinds and failure classes are bounded per metric (`maxQueues`,
 * `maxKinds`, `maxErrorClasses`, 100 each): past the bound a value is labelled `_other` and
 * counted in `verq_metric_labels_overflow_total{metric,label}`; stream types and the states of
 * each are bounded the same way (`maxStreamTypes`, `maxStreamStates`). Every state of the default
 * queue's kindless jobs, and every reason, is present, 0 when empty; other series exist while
 * jobs are in them, and a stream series while streams are in it. An age is 0 when nothing is
 * waiting. A `files` root that is not a file queue, or a bound that is not a whole number of at
 * least 1, throws `VERQ_INVALID_ARGUMENT` here, before anything is registered; registering twice
 * on one registry throws, as prom-client does for any metric name registered twice.
 *
 * @example
 * const registry = new Registry();
 * registerVerqMetrics(registry, { store, files: "/var/spool/orders" });
 * await app.register(metricsPlugin, { registry }); // GET /metrics
 */
export function registerVerqMetrics(registry: Registry, options: VerqMetricsOptions): void {
  if (options.files !== undefined) openQueue(options.files);
  const bounds = {
    queues: checkBound(options.maxQueues, "maxQueues"),
    kinds: checkBound(options.maxKinds, "maxKinds"),
    errorClasses: checkBound(options.maxErrorClasses, "maxErrorClasses"),
  };
  const streamBounds = {
    types: checkBound(options.maxStreamTypes, "maxStreamTypes"),
    states: checkBound(options.maxStreamStates, "maxStreamStates"),
  };
  const overflow = overflowCounter(registry);
  const countFolded = ({ folded }: LabelledGroups, streams: LabelledStreams) => {
    const byLabel = {
      queue: folded.queue,
      kind: folded.kind,
      error_class: folded.errorClass,
      stream_type: streams.folded.streamType,
      state: streams.folded.state,
    };
    for (const [metric, labels] of Object.entries(BOUNDED_LABELS)) {
      for (const label of labels) if (byLabel[label] > 0) overflow.counter.inc({ metric, label }, byLabel[label]);
    }
  };
  const figures = figureReader({
    store: options.store,
    files: options.files,
    clock: options.clock ?? systemClock,
    bounds,
    streamBounds,
    onRead: countFolded,
  });
  overflow.waitFor(figures);
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

  /** A counter whose values are totals kept by the store; they only climb, so they are exposed as a counter. */
  const counter = <L extends string>(
    name: (typeof VERQ_METRIC_NAMES)[number],
    help: string,
    labelNames: readonly L[],
    totals: (f: VerqFigures) => readonly [Partial<Record<L, string>>, number][],
  ) =>
    new Counter<L>({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        const values = totals(await figures());
        this.reset();
        for (const [labels, value] of values) this.inc(labels, value);
      },
    });

  gauge("verq_jobs", "Jobs by queue, kind and state.", ["queue", "kind", "state"], (g, f) => {
    g.reset();
    for (const { queue, kind, byState } of f.labelled.groups) {
      for (const [state, count] of Object.entries(byState)) g.set({ queue, kind, state }, count);
    }
  });
  gauge("verq_jobs_dead", "Dead jobs by the reason they died.", ["reason"], (g, f) => {
    for (const [reason, { count }] of Object.entries(f.jobs.dead.byReason)) g.set({ reason }, count);
  });
  gauge(
    "verq_jobs_dead_by_failure_class",
    "Dead jobs by queue, kind and the class of their last recorded failure (empty: none recorded).",
    ["queue", "kind", "error_class"],
    (g, f) => {
      g.reset();
      for (const { queue, kind, deadByFailureClass } of f.labelled.groups) {
        for (const [errorClass, count] of deadByFailureClass) g.set({ queue, kind, error_class: errorClass }, count);
      }
    },
  );
  gauge("verq_jobs_oldest_dead_age_seconds", "Seconds since the oldest dead job died; 0 when none is dead.", [], (g, f) =>
    g.set(ageSeconds(f.now, f.jobs.dead.oldest?.deadSince)),
  );
  counter(
    "verq_job_lease_expiries_total",
    "Claims that took a job over from a worker whose lease had expired, by queue and kind.",
    ["queue", "kind"],
    (f) => f.labelled.groups.map(({ queue, kind, leaseExpiries }) => [{ queue, kind }, leaseExpiries]),
  );
  counter(
    "verq_job_stale_finishes_refused_total",
    "Finishes refused because the token was stale or the job no longer leased.",
    [],
    (f) => [[{}, f.jobs.staleFinishesRefused]],
  );
  counter("verq_job_redrives_total", "Redrives of dead jobs recorded in the audit trail.", [], (f) => [[{}, f.jobs.redrives]]);
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
  gauge(
    "verq_streams",
    "Streams of the stream types a service declared, by type and machine state (from the generic projection).",
    ["stream_type", "state"],
    (g, f) => {
      g.reset();
      for (const { streamType, state, count } of f.streams.counts) g.set({ stream_type: streamType, state }, count);
    },
  );
  if (options.files !== undefined) {
    gauge("verq_files", "Files in the file queue's inbox, processing and error folders.", ["dir"], (g, f) => {
      if (f.files === null) return;
      for (const dir of QUEUE_DIRS) g.set({ dir }, f.files[dir]);
    });
  }
}
