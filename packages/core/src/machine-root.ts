import type { MachineGraph, MachineGraphEdge } from "./machine-graph.ts";

/** A transition declared on a machine's root, and the states it applies in. */
export interface RootTransition {
  /** The transition as {@link machineGraph} lists it for the first state it applies in. */
  readonly edge: MachineGraphEdge;
  /** Every state without a transition of its own for the event, in the definition's order. */
  readonly states: readonly string[];
}

/**
 * The transitions declared on the machine's root (its fallbacks), grouped back from
 * {@link machineGraph}, which lists them once per state they apply in: by event, in the
 * root's order, each event's list in its order. An event every state handles itself never
 * applies and is not seen. Pure.
 */
export function rootTransitions(graph: MachineGraph): Map<string, RootTransition[]> {
  const lists = new Map<string, RootTransition[]>();
  const states = new Map<string, string[]>();
  const from = new Map<string, string>();
  // Each state lists the root's events in the root's order, less its own: merged, they give that order.
  const order: string[] = [];
  for (const state of graph.states) {
    let previous = -1;
    for (const edge of graph.transitions) {
      if (!edge.fallback || edge.source !== state) continue;
      const first = from.get(edge.event) ?? state;
      from.set(edge.event, first);
      const applies = states.get(edge.event) ?? [];
      if (!applies.includes(state)) applies.push(state);
      states.set(edge.event, applies);
      if (first === state) lists.set(edge.event, [...(lists.get(edge.event) ?? []), { edge, states: applies }]);
      if (!order.includes(edge.event)) order.splice(previous + 1, 0, edge.event);
      previous = order.indexOf(edge.event);
    }
  }
  return new Map(order.map((event) => [event, lists.get(event) ?? []]));
}
