import { DEFAULT_QUEUE, JOB_STATES, type JobState } from "@verq/core";
import { JOB_STATS_NONE, type JobGroupStats } from "@verq/store";
import { boundByName, KINDLESS_LABEL_VALUE } from "./label-bounds.ts";

/** How many distinct values each label of the per-queue-and-kind metrics takes at most. */
export interface LabelBounds {
  readonly queues: number;
  readonly kinds: number;
  readonly errorClasses: number;
}

/** The figures of one `(queue, kind)` label pair of a scrape, past the bounds: the groups folded into it summed. */
export interface LabelledGroup {
  readonly queue: string;
  readonly kind: string;
  readonly byState: Readonly<Record<JobState, number>>;
  readonly leaseExpiries: number;
  /** Dead jobs by `error_class` label value (empty: no failure recorded). */
  readonly deadByFailureClass: ReadonlyMap<string, number>;
}

/** The labelled groups of one scrape, and how many distinct values each label folded into the overflow value. */
export interface LabelledGroups {
  readonly groups: readonly LabelledGroup[];
  readonly folded: { readonly queue: number; readonly kind: number; readonly errorClass: number };
}

const zeroStates = () => Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Record<JobState, number>;
const classLabel = (name: string): string => (name === JOB_STATS_NONE ? "" : name);

/**
 * The per-queue-and-kind figures of `JobStats.groups` as label values: the kind `null` as
 * {@link KINDLESS_LABEL_VALUE}, a failure class of none as empty, and every label bounded by name
 * (`boundByName`), the groups that fold into one label pair summed. The default queue's kindless
 * jobs are always there (zeros when none), so that an empty store still has its series. Pure.
 */
export function labelGroups(groups: readonly JobGroupStats[], bounds: LabelBounds): LabelledGroups {
  const all = groups.some((g) => g.queue === DEFAULT_QUEUE && g.kind === null)
    ? groups
    : [
        {
          queue: DEFAULT_QUEUE,
          kind: null,
          byState: zeroStates(),
          leaseExpiries: 0,
          deadByFailureClass: {},
        },
        ...groups,
      ];
  const queue = boundByName(
    all.map((g) => g.queue),
    bounds.queues,
  );
  const kind = boundByName(
    all.map((g) => g.kind ?? KINDLESS_LABEL_VALUE),
    bounds.kinds,
  );
  const errorClass = boundByName(
    all.flatMap((g) => Object.keys(g.deadByFailureClass).map(classLabel)),
    bounds.errorClasses,
  );
  const labelled = new Map<
    string,
    { -readonly [K in keyof LabelledGroup]: LabelledGroup[K] } & {
      byState: Record<JobState, number>;
      deadByFailureClass: Map<string, number>;
    }
  >();
  for (const g of all) {
    const labels = { queue: queue.label(g.queue), kind: kind.label(g.kind ?? KINDLESS_LABEL_VALUE) };
    const key = JSON.stringify([labels.queue, labels.kind]);
    let entry = labelled.get(key);
    if (entry === undefined) {
      entry = { ...labels, byState: zeroStates(), leaseExpiries: 0, deadByFailureClass: new Map() };
      labelled.set(key, entry);
    }
    for (const state of JOB_STATES) entry.byState[state] += g.byState[state];
    entry.leaseExpiries += g.leaseExpiries;
    for (const [name, count] of Object.entries(g.deadByFailureClass)) {
      const label = errorClass.label(classLabel(name));
      entry.deadByFailureClass.set(label, (entry.deadByFailureClass.get(label) ?? 0) + count);
    }
  }
  return {
    groups: [...labelled.values()],
    folded: { queue: queue.folded, kind: kind.folded, errorClass: errorClass.folded },
  };
}
