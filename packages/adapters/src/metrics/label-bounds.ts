import { VerqError } from "@verq/core";
import { Counter, type Registry } from "prom-client";

/**
 * The label value that stands for every value past a metric's bound (see {@link LabelBound}):
 * never a job kind's name (those start with a letter).
 */
export const OVERFLOW_LABEL_VALUE = "_other";

/** The `kind` label value of the jobs without a kind: empty, which Prometheus reads as the label being absent. */
export const KINDLESS_LABEL_VALUE = "";

/** How many distinct kinds, queues and failure classes a metric labels by their own names unless told: 100. */
export const DEFAULT_MAX_LABEL_VALUES = 100;

/** The name of the counter of label values folded into {@link OVERFLOW_LABEL_VALUE}. */
export const OVERFLOW_METRIC_NAME = "verq_metric_labels_overflow_total";

/** The labels a value may be folded in: the metric and the label it was meant for. */
type OverflowLabels = "metric" | "label";

/** A registry's overflow counter, and the reads its scrape must wait for. */
interface OverflowState {
  readonly counter: Counter<OverflowLabels>;
  readonly reads: Set<() => Promise<unknown>>;
}

const overflowStates = new WeakMap<Registry, OverflowState>();

/**
 * The registry's `verq_metric_labels_overflow_total{metric,label}`, made on first use and shared
 * by every part of verq's metrics on that registry. A scrape reads it after the reads registered
 * with `waitFor` (each part's read of the store, shared by its metrics within one scrape), so an
 * overflow found by a scrape is counted in that same scrape.
 */
export function overflowCounter(registry: Registry): {
  readonly counter: Counter<OverflowLabels>;
  waitFor(read: () => Promise<unknown>): void;
} {
  let state = overflowStates.get(registry);
  if (state === undefined) {
    const reads = new Set<() => Promise<unknown>>();
    const counter = new Counter<OverflowLabels>({
      name: OVERFLOW_METRIC_NAME,
      help: "Label values past a metric's bound, counted under the label value _other instead of their own.",
      labelNames: ["metric", "label"],
      registers: [registry],
      async collect() {
        await Promise.all([...reads].map((read) => read()));
      },
    });
    state = { counter, reads };
    overflowStates.set(registry, state);
  }
  const { counter, reads } = state;
  return { counter, waitFor: (read) => reads.add(read) };
}

/**
 * The values one label of one metric may take: the first `max` distinct values seen keep their
 * own name for the life of the process; every later one is {@link OVERFLOW_LABEL_VALUE}, and each
 * observation folded so adds 1 to the overflow counter. Bounds the metric's series however many
 * kinds or queues the jobs name.
 */
export class LabelBound {
  readonly #seen = new Set<string>();

  constructor(
    private readonly max: number,
    private readonly overflow: Counter<OverflowLabels>,
    private readonly metric: string,
    private readonly label: string,
  ) {}

  /** `value`, or {@link OVERFLOW_LABEL_VALUE} once `max` other values were seen. */
  admit(value: string): string {
    if (this.#seen.has(value)) return value;
    if (this.#seen.size < this.max) {
      this.#seen.add(value);
      return value;
    }
    this.overflow.inc({ metric: this.metric, label: this.label });
    return OVERFLOW_LABEL_VALUE;
  }
}

/**
 * A bound on the values of a label as one scrape reads them from the store: the first `max`
 * distinct values by name keep their own name, the others are {@link OVERFLOW_LABEL_VALUE}. Pure,
 * so that every process scraping one store folds the same values. Returns the label of each value
 * and how many distinct values were folded.
 */
export function boundByName(values: Iterable<string>, max: number): { label: (value: string) => string; folded: number } {
  const sorted = [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const kept = new Set(sorted.slice(0, max));
  return {
    label: (value) => (kept.has(value) ? value : OVERFLOW_LABEL_VALUE),
    folded: sorted.length - kept.size,
  };
}

/** A bound given as an option: {@link DEFAULT_MAX_LABEL_VALUES} when absent, else a whole number of at least 1, else `VERQ_INVALID_ARGUMENT` naming it. */
export function checkBound(value: unknown, name: string): number {
  const bound = value ?? DEFAULT_MAX_LABEL_VALUES;
  if (typeof bound !== "number" || !Number.isSafeInteger(bound) || bound < 1) {
    throw new VerqError("VERQ_INVALID_ARGUMENT", `${name} must be a whole number of at least 1`);
  }
  return bound;
}
