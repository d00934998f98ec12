import type { AnyStateMachine } from "xstate";
import { guardName } from "./machine-graph.ts";

interface NodeView {
  readonly states: Record<string, NodeView>;
  readonly always?: readonly unknown[];
}

interface DefinitionView {
  states: Record<string, DefinitionView>;
  always?: readonly unknown[];
}

/**
 * The machine's `toJSON()` as JSON text (two-space indent, a final line break): every state
 * node with its transitions, targets, guards, actions and their params, as XState describes
 * it. Two things are added where a bare `JSON.stringify(machine.toJSON())` would lose them:
 * - eventless transitions: XState's `toJSON()` leaves them out, so each state node that has
 *   some gets an `always` list, in the same form as its `on` lists;
 * - guards built by `not()`, `and()` or `or()`: they are functions, which JSON drops, leaving
 *   the transition looking unguarded; they are written as their names, as
 *   {@link machineGraph} reads them (`"!tokenMatches"`).
 * Pure.
 */
export function machineJson(machine: AnyStateMachine): string {
  const definition = machine.toJSON() as DefinitionView;
  addAlways(machine.root, definition);
  const json = JSON.stringify(
    definition,
    (key, value: unknown) => (key === "guard" && typeof value === "function" ? guardName(value) : value),
    2,
  );
  return `${json}\n`;
}

// `toJSON()` builds a new definition object on every call, so adding to it changes nothing of the machine's.
function addAlways(node: NodeView, definition: DefinitionView): void {
  if (node.always !== undefined && node.always.length > 0) definition.always = node.always;
  for (const [key, child] of Object.entries(node.states)) {
    const childDefinition = definition.states[key];
    if (childDefinition !== undefined) addAlways(child, childDefinition);
  }
}
