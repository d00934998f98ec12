import { rootTransitions, type MachineGraph, type MachineGraphEdge } from "@verq/core";

/**
 * The refusals of a machine as a Markdown table (`| state | event | guard | refusal |`): the
 * transitions a diagram leaves out because they stay put and record nothing. First each
 * state's own, in the definition's order; then the root's fallbacks, one row each, whose state
 * is written as the states it applies in (`any other: pending, leased, done`). "(none)" when
 * the machine refuses nothing.
 */
export function refusalTable(graph: MachineGraph): string {
  const rows = graph.transitions.filter((t) => t.refusal && !t.fallback).map((t) => row(t.source, t));
  for (const list of rootTransitions(graph).values()) {
    for (const { edge, states } of list) if (edge.refusal) rows.push(row(`any other: ${states.join(", ")}`, edge));
  }
  if (rows.length === 0) return "(none)\n";
  return `${["| state | event | guard | refusal |", "|---|---|---|---|", ...rows].join("\n")}\n`;
}

const row = (state: string, edge: MachineGraphEdge): string => {
  const refusals = edge.actions.map((a) => a.slice("refuse:".length)).join(", ");
  return `| ${state} | ${code(edge.event)} | ${code(edge.guard)} | ${code(refusals)} |`;
};

/** A table cell's text in backticks, with `|` escaped so that it stays one cell; nothing stays empty. */
const code = (text: string | null): string => (text === null || text === "" ? "" : `\`${text.replace(/\|/g, "\\|")}\``);
