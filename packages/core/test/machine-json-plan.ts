import type { MachineGraph } from "../src/index.ts";

/** One guard evaluation: the named guard XState asks, and what it answers. */
export type Evaluation = readonly [guard: string, outcome: boolean];

/** One command of a run: its event type, the guard answers that select the planned transitions, and where it ends. */
export interface PlannedStep {
  readonly event: string;
  /** Every guard evaluation XState makes for the event and the eventless transitions after it, in order. */
  readonly evaluations: readonly Evaluation[];
  /** The transitions taken, as indices into the graph's `transitions`: the event's, then an eventless one if any. */
  readonly taken: readonly number[];
  /** The state the machine is in afterwards. */
  readonly value: string;
}

/**
 * The evaluations that make a guard, as {@link machineGraph} names it, answer `outcome`: a name
 * is asked once; `!a` asks `a` for the opposite; `a && b` and `a || b` ask their operands in
 * order and stop where xstate's `and()` and `or()` stop.
 */
export function evaluations(guard: string, outcome: boolean): Evaluation[] {
  const any = guard.split(" || ");
  if (any.length > 1) return outcome ? evaluations(any[0] ?? "", true) : any.flatMap((g) => evaluations(g, false));
  const all = guard.split(" && ");
  if (all.length > 1) return outcome ? all.flatMap((g) => evaluations(g, true)) : evaluations(all[0] ?? "", false);
  if (guard.startsWith("!")) return evaluations(guard.slice(1), !outcome);
  return [[guard, outcome]];
}

/** The candidates XState tries in `source` for `event`, in order, as indices into the graph's transitions. */
function candidates(graph: MachineGraph, source: string, event: string): number[] {
  return graph.transitions.flatMap((t, index) => (t.source === source && t.event === event ? [index] : []));
}

/** The evaluations that make XState pick the candidate at `place` of `list`: every guard before it false, its own true. */
function select(graph: MachineGraph, list: readonly number[], place: number): Evaluation[] {
  const chosen: Evaluation[] = [];
  list.slice(0, place + 1).forEach((index, at) => {
    const { guard } = graph.transitions[index] ?? { guard: null };
    if (guard === null && at < place) throw new Error(`transition ${index} follows an unguarded one and is never taken`);
    if (guard !== null) chosen.push(...evaluations(guard, at === place));
  });
  return chosen;
}

/** The evaluations that leave `state` by no eventless transition: every one of its guards false. */
function stay(graph: MachineGraph, state: string): Evaluation[] {
  return candidates(graph, state, "always").flatMap((index) => {
    const guard = graph.transitions[index]?.guard ?? null;
    if (guard === null) throw new Error(`${state} is always left by transition ${index}`);
    return evaluations(guard, false);
  });
}

/** Every way an event transition can be planned: with each eventless transition after it, or none. */
function options(graph: MachineGraph, index: number): PlannedStep[] {
  const edge = graph.transitions[index];
  if (edge === undefined || edge.event === "always") return [];
  const own = select(
    graph,
    candidates(graph, edge.source, edge.event),
    candidates(graph, edge.source, edge.event).indexOf(index),
  );
  const always = candidates(graph, edge.target, "always");
  const planned: PlannedStep[] = [];
  const attempt = (make: () => PlannedStep): void => {
    try {
      planned.push(make());
    } catch {
      // An eventless transition that cannot be left again (an unguarded one) is not planned.
    }
  };
  attempt(() => ({ event: edge.event, evaluations: [...own, ...stay(graph, edge.target)], taken: [index], value: edge.target }));
  always.forEach((next, place) =>
    attempt(() => {
      const after = graph.transitions[next]?.target ?? edge.target;
      const evaluated = [...own, ...select(graph, always, place), ...stay(graph, after)];
      return { event: edge.event, evaluations: evaluated, taken: [index, next], value: after };
    }),
  );
  return planned;
}

/**
 * One run per transition of a flat machine's graph, each from the initial state: the shortest
 * steps to its source state, then a step that takes it (an eventless transition is taken by the
 * step of an event transition into its source). The guards' answers come with each step, so a
 * run reaches every transition whatever the guards would decide on real data. A transition no
 * run can take is an error naming it.
 */
export function coveringRuns(graph: MachineGraph): PlannedStep[][] {
  if (candidates(graph, graph.initial, "always").length > 0) throw new Error("an initial state with eventless transitions");
  const routes = new Map<string, PlannedStep[]>([[graph.initial, []]]);
  const stepsFrom = (state: string) =>
    graph.transitions.flatMap((t, index) => (t.source === state && t.event !== "always" ? options(graph, index) : []));
  for (let frontier = [graph.initial]; frontier.length > 0;) {
    const next: string[] = [];
    for (const state of frontier) {
      for (const step of stepsFrom(state)) {
        if (routes.has(step.value)) continue;
        routes.set(step.value, [...(routes.get(state) ?? []), step]);
        next.push(step.value);
      }
    }
    frontier = next;
  }
  return graph.transitions.map((edge, index) => {
    for (const [state, route] of routes) {
      const step = stepsFrom(state).find((s) => s.taken.includes(index));
      if (step !== undefined) return [...route, step];
    }
    throw new Error(`no run reaches ${edge.source} --${edge.event}--> ${edge.target} (transition ${index})`);
  });
}
