import type { MachineGraph, MachineGraphEdge } from "./machine-graph.ts";

/**
 * A transition's label: its event, then its guard in brackets when it has one
 * (`job.finish [outcomeIsOk]`, `job.claim [!leaseExpired]`, `always [rejects]`).
 */
export function transitionLabel(edge: MachineGraphEdge): string {
  return edge.guard === null ? edge.event : `${edge.event} [${edge.guard}]`;
}

/**
 * Whether a diagram draws the transition: every one that records something or moves the
 * machine. A refusal (a transition whose only action refuses, which stays put and records
 * nothing) is left out of the drawing; docs/machines.md lists them in a table instead.
 */
export function isDrawnTransition(edge: MachineGraphEdge): boolean {
  return !edge.refusal;
}

/**
 * The machine as a Mermaid `stateDiagram-v2`: `[*] --> <initial>`, every state declared (also
 * one that only refuses), and one arrow per drawn transition ({@link isDrawnTransition}),
 * labelled by {@link transitionLabel}; an unguarded transition that comes after guarded ones for
 * the same event (drawn or refused) is labelled `[else]`: it is taken only when none of them
 * is (XState takes the first enabled transition in order). A transition without a target, such as a heartbeat that
 * only extends a lease, is a loop on its own state. A root fallback is drawn from each state it
 * applies in. Pure: the same graph always gives the same text, so a diagram kept in the docs
 * can be compared with the code.
 *
 * @example
 * machineMermaid(machineGraph(VERQ_MACHINES.job));
 * // stateDiagram-v2
 * //   [*] --> new
 * //   …
 * //   leased --> done: job.finish [outcomeIsOk]
 */
export function machineMermaid(graph: MachineGraph): string {
  const id = mermaidIds(graph.states);
  const ref = (state: string): string => id.get(state) ?? state;
  const lines = ["stateDiagram-v2"];
  for (const state of graph.states) lines.push(`  state "${state}" as ${ref(state)}`);
  lines.push(`  [*] --> ${ref(graph.initial)}`);
  graph.transitions.forEach((edge, index) => {
    if (!isDrawnTransition(edge)) return;
    const label = edge.guard === null && afterGuarded(graph.transitions, index) ? `${edge.event} [else]` : transitionLabel(edge);
    lines.push(`  ${ref(edge.source)} --> ${ref(edge.target)}: ${escapeLabel(label)}`);
  });
  return `${lines.join("\n")}\n`;
}

/** Whether a transition before `index` leaves the same state on the same event under a guard. */
function afterGuarded(transitions: readonly MachineGraphEdge[], index: number): boolean {
  const edge = transitions[index];
  return transitions.slice(0, index).some((t) => t.source === edge?.source && t.event === edge.event && t.guard !== null);
}

/**
 * Mermaid ids for the states: the name itself when it is a plain identifier, else a
 * sanitised one made unique. The text shown is always the state's own name (`state "…" as id`),
 * so ids only need to be valid and distinct.
 */
function mermaidIds(states: readonly string[]): Map<string, string> {
  const ids = new Map<string, string>();
  const taken = new Set<string>();
  for (const state of states) {
    const base = /^[A-Za-z][A-Za-z0-9_]*$/.test(state) ? state : `s_${state.replace(/[^A-Za-z0-9_]/g, "_")}`;
    let candidate = base;
    for (let n = 2; taken.has(candidate); n++) candidate = `${base}_${n}`;
    taken.add(candidate);
    ids.set(state, candidate);
  }
  return ids;
}

/** A label's characters that Mermaid would read as syntax (`;`, `#`, a line break) as entity codes. */
function escapeLabel(label: string): string {
  return label.replace(/[\r\n]+/g, " ").replace(/[#;]/g, (c) => (c === "#" ? "#35;" : "#59;"));
}
