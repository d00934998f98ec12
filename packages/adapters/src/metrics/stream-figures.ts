import type { VerqStore } from "@verq/store";
import { boundByName } from "./label-bounds.ts";

/** How many streams of one declared type are in one state, or a label pair past the bounds summed. */
export interface StreamStateCount {
  readonly streamType: string;
  readonly state: string;
  readonly count: number;
}

/** How many distinct values `verq_streams` labels by their own names: stream types, and states of each type. */
export interface StreamBounds {
  readonly types: number;
  /** Per stream type: the states of one type are bounded apart from those of another. */
  readonly states: number;
}

/** The `verq_streams` series of one scrape, and how many distinct values each label folded into the overflow value. */
export interface LabelledStreams {
  readonly counts: readonly StreamStateCount[];
  readonly folded: { readonly streamType: number; readonly state: number };
}

/**
 * The streams of every declared type in each state, from the generic projection
 * (`stream_states`) in one grouped query: every stream type written there, declared by this
 * process or not. A type that keeps its own projection has no rows there and no count.
 */
export async function readStreamCounts(store: VerqStore): Promise<StreamStateCount[]> {
  const rows = await store.db
    .selectFrom("stream_states")
    .select((eb) => ["stream_type", "state", eb.fn.countAll<number | string | bigint>().as("n")])
    .groupBy(["stream_type", "state"])
    .execute();
  return rows.map((row) => ({ streamType: row.stream_type, state: row.state, count: Number(row.n) }));
}

/**
 * The counts as label values within `bounds`: the first stream types by name keep their names,
 * and within each of those (and within `_other`) the first states by name (`boundByName`, so
 * that every process folds the same values); the others are `_other`, their counts summed
 * there. Sorted by type, then state. Pure.
 */
export function labelStreams(counts: readonly StreamStateCount[], bounds: StreamBounds): LabelledStreams {
  const types = boundByName(
    counts.map((c) => c.streamType),
    bounds.types,
  );
  // States are bounded within each labelled type, `_other` included, so that no label pair grows without bound.
  const statesOf = new Map<string, string[]>();
  for (const c of counts) {
    const streamType = types.label(c.streamType);
    statesOf.set(streamType, [...(statesOf.get(streamType) ?? []), c.state]);
  }
  const stateBounds = new Map([...statesOf].map(([type, states]) => [type, boundByName(states, bounds.states)]));
  const summed = new Map<string, { streamType: string; state: string; count: number }>();
  for (const c of counts) {
    const streamType = types.label(c.streamType);
    const state = stateBounds.get(streamType)?.label(c.state) ?? c.state;
    const key = JSON.stringify([streamType, state]);
    const entry = summed.get(key) ?? { streamType, state, count: 0 };
    entry.count += c.count;
    summed.set(key, entry);
  }
  const order = (a: StreamStateCount, b: StreamStateCount) =>
    a.streamType < b.streamType ? -1 : a.streamType > b.streamType ? 1 : a.state < b.state ? -1 : a.state > b.state ? 1 : 0;
  return {
    counts: [...summed.values()].sort(order),
    folded: {
      streamType: types.folded,
      state: [...stateBounds.values()].reduce((sum, bound) => sum + bound.folded, 0),
    },
  };
}
