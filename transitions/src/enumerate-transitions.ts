import { guardName } from "@verq/core";
import type { AnyStateMachine } from "xstate";
import { toDirectedGraph, type DirectedGraphEdge } from "xstate/graph";

/** One transition a machine can take: a state, an event, and one guard branch with its target. */
export interface MachineTransition {
  readonly machine: string;
  /** The state it leaves. */
  readonly source: string;
  /** The event type, `always` for an eventless transition. */
  readonly event: string;
  /** Its place among the candidates tried for this state and event: the state's own, then the root's. */
  readonly branch: number;
  /** The guard as written (`!leaseExpired`), null when unguarded. */
  readonly guard: string | null;
  /** The state it enters (the source itself when it stays). */
  readonly target: string;
  /** What it does: `refuse:<refusal>` or the action names. */
  readonly outcome: string;
  /** Declared on the root: a fallback of every state with no enabled transition of its own. */
  readonly fallback: boolean;
  /** `machine<TAB>source<TAB>event<TAB>branch`: how a recorded transition names it. */
  readonly key: string;
}

type Transition = DirectedGraphEdge["transition"];

/**
 * Every transition of a flat machine, read with xstate/graph's `toDirectedGraph`: for each state,
 * each event it or the root handles, the candidates in XState's order (the state's own
 * transitions, then the root's), one per guard branch; and each eventless transition. A root
 * fallback is listed for a state only when it can be reached there, that is when the state's own
 * transitions for the event all carry a guard. Pure.
 */
export function enumerateTransitions(machine: AnyStateMachine): MachineTransition[] {
  const graph = toDirectedGraph(machine);
  const rootByEvent = byEvent(graph.edges);
  const transitions: MachineTransition[] = [];
  for (const child of graph.children) {
    const source = child.stateNode.key;
    const own = byEvent(child.edges);
    const events = [...own.keys(), ...[...rootByEvent.keys()].filter((event) => !own.has(event))];
    for (const event of events) {
      const mine = own.get(event) ?? [];
      const reachesRoot = mine.every((t) => t.guard !== undefined);
      const candidates: [Transition, boolean][] = mine.map((t) => [t, false]);
      if (reachesRoot) for (const t of rootByEvent.get(event) ?? []) candidates.push([t, true]);
      candidates.forEach(([t, fallback], branch) => transitions.push(describe(machine.id, source, event, branch, t, fallback)));
    }
    const always = (child.stateNode.always ?? []) as readonly Transition[];
    always.forEach((t, branch) => transitions.push(describe(machine.id, source, "always", branch, t, false)));
  }
  return transitions;
}

/** The edges of one node grouped by event, each list in the definition's order. */
function byEvent(edges: readonly DirectedGraphEdge[]): Map<string, Transition[]> {
  const grouped = new Map<string, Transition[]>();
  for (const edge of edges) {
    const event = String(edge.transition.eventType as unknown);
    const list = grouped.get(event) ?? [];
    // One edge per target: a transition with several targets is still one transition.
    if (!list.includes(edge.transition)) list.push(edge.transition);
    grouped.set(event, list);
  }
  return grouped;
}

function describe(
  machine: string,
  source: string,
  event: string,
  branch: number,
  t: Transition,
  fallback: boolean,
): MachineTransition {
  return {
    machine,
    source,
    event,
    branch,
    guard: t.guard === undefined ? null : guardName(t.guard),
    target: t.target?.[0]?.key ?? source,
    outcome: t.actions.map(actionLabel).join(", ") || "(nothing)",
    fallback,
    key: `${machine}\t${source}\t${event}\t${branch}`,
  };
}

function actionLabel(action: unknown): string {
  if (typeof action === "string") return action;
  if (typeof action === "object" && action !== null && "type" in action) {
    const { type, params } = action as { type: unknown; params?: Record<string, unknown> };
    if (type === "refuse" && typeof params?.refusal === "string") return `refuse:${params.refusal}`;
    if (params !== undefined && typeof params === "object") {
      const values = Object.values(params).filter((v) => typeof v === "string");
      if (values.length > 0) return `${String(type)}:${values.join(",")}`;
    }
    return String(type);
  }
  return typeof action === "function" && action.name !== "" ? action.name : "inline";
}
