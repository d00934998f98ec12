import { and, not, or, type AnyStateMachine } from "xstate";
import { guidMachine } from "./guid.machine.ts";
import { jobMachine } from "./job.machine.ts";
import { lockMachine } from "./lock.machine.ts";
import { messageMachine } from "./message.machine.ts";
import { queueMachine } from "./queue.machine.ts";
import { scheduleMachine } from "./schedule.machine.ts";
import type { VerqMachineName } from "./streams.ts";

/** One transition of a flat machine, read from its definition. */
export interface MachineGraphEdge {
  /** The state the transition leaves. */
  readonly source: string;
  /** The event type, or `always` for an eventless transition. */
  readonly event: string;
  /** The state it enters; the source itself when it stays (a refusal or an update of the context). */
  readonly target: string;
  /** Whether the transition names a target state (a `reenter` to its own state counts). */
  readonly targeted: boolean;
  /** The guard as written: `isDue`, `!leaseExpired`, or null when the transition is always enabled. */
  readonly guard: string | null;
  /** The action names, with a `refuse` action's refusal as `refuse:<refusal>`. */
  readonly actions: readonly string[];
  /** True when the only action is a refusal: the command is answered and nothing is recorded. */
  readonly refusal: boolean;
  /** Declared on the machine's root: applies in every state without a transition of its own for the event. */
  readonly fallback: boolean;
}

/** The states and transitions of one flat machine, in the definition's order. */
export interface MachineGraph {
  readonly id: string;
  readonly initial: string;
  readonly states: readonly string[];
  readonly transitions: readonly MachineGraphEdge[];
}

/**
 * The machines verq's streams are decided by, under the names `STREAM_MACHINES` gives them (the
 * names the CLI and the dashboard use): keyed by exactly those names, so a machine named there
 * and missing here, or the reverse, fails to compile.
 */
export const VERQ_MACHINES: Readonly<Record<VerqMachineName, AnyStateMachine>> = {
  job: jobMachine,
  guid: guidMachine,
  message: messageMachine,
  schedule: scheduleMachine,
  queue: queueMachine,
  lock: lockMachine,
};

interface TransitionView {
  readonly guard?: unknown;
  readonly target?: readonly { readonly key: string }[];
  readonly actions: readonly unknown[];
}

interface NodeView {
  readonly key: string;
  readonly states: Record<string, NodeView>;
  readonly always?: readonly TransitionView[];
  readonly transitions: ReadonlyMap<string, readonly TransitionView[]>;
}

/**
 * Reads a flat machine's definition (one level of states under the root, as all of verq's are)
 * into its states and transitions. A root-level transition is a fallback: it is listed once per
 * state, marked `fallback`, for every state that has no transition of its own for that event.
 */
export function machineGraph(machine: AnyStateMachine): MachineGraph {
  const root = machine.root as unknown as NodeView;
  const initial = (machine.root.initial?.target?.[0] as { key?: string } | undefined)?.key;
  if (initial === undefined) throw new Error(`${machine.id} machine has no initial state`);
  const states = Object.keys(root.states);
  const transitions: MachineGraphEdge[] = [];
  for (const state of states) {
    const node = root.states[state] as NodeView;
    for (const [event, list] of node.transitions) for (const t of list) transitions.push(edge(state, event, t, false));
    for (const [event, list] of root.transitions) {
      if (node.transitions.has(event)) continue;
      for (const t of list) transitions.push(edge(state, event, t, true));
    }
    for (const t of node.always ?? []) transitions.push(edge(state, "always", t, false));
  }
  return { id: machine.id, initial, states, transitions };
}

function edge(source: string, event: string, t: TransitionView, fallback: boolean): MachineGraphEdge {
  const target = t.target?.[0]?.key;
  const actions = t.actions.map(actionName);
  return {
    source,
    event,
    target: target ?? source,
    targeted: target !== undefined,
    guard: t.guard === undefined ? null : guardName(t.guard),
    actions,
    refusal: actions.length > 0 && actions.every((a) => a.startsWith("refuse:")),
    fallback,
  };
}

// XState's higher-order guards are told apart by the `check` they carry, not by their function's
// name, which a bundler may rename (esbuild turns xstate's inner `not` into `not2`). A machine
// built with another copy of xstate (a service's, read by the bundled CLI) carries that copy's
// check: it is known by the check's own name (`checkNot`, or `checkNot2` once bundled).
const checkOf = (guard: unknown): unknown => (guard as { check?: unknown }).check;
const NOT_CHECK = checkOf(not("guard"));
const AND_CHECK = checkOf(and([]));
const OR_CHECK = checkOf(or([]));

/** Whether `check` is xstate's check of one higher-order guard: this copy's, or another's by its name. */
const isCheck = (check: unknown, own: unknown, name: string): boolean =>
  check === own || (typeof check === "function" && new RegExp(`^${name}\\d*$`).test(check.name));

/**
 * The three higher-order guards, by the name XState exports each under and a JSON config writes as `type`.
 *
 * @internal
 */
export type GuardOperator = "not" | "and" | "or";

/**
 * A higher-order guard's operator and operands, or null for any other guard. It reads xstate's
 * `not()`, `and()` and `or()` (told apart by their check) and the JSON form {@link machineJson}
 * writes them in, `{ type: "not", params: { guards: [...] } }`.
 *
 * @internal
 */
export function guardOperator(guard: unknown): { operator: GuardOperator; operands: readonly unknown[] } | null {
  if (typeof guard === "function") {
    const { guards: operands, check } = guard as { guards?: readonly unknown[]; check?: unknown };
    if (operands === undefined) return null;
    if (isCheck(check, NOT_CHECK, "checkNot")) return { operator: "not", operands };
    if (isCheck(check, AND_CHECK, "checkAnd")) return { operator: "and", operands };
    if (isCheck(check, OR_CHECK, "checkOr")) return { operator: "or", operands };
    return null;
  }
  if (typeof guard !== "object" || guard === null) return null;
  const { type, params } = guard as { type?: unknown; params?: { guards?: unknown } };
  if ((type === "not" || type === "and" || type === "or") && Array.isArray(params?.guards)) {
    return { operator: type, operands: params.guards as unknown[] };
  }
  return null;
}

/**
 * A guard as written: a named guard's name, `!name` for `not(name)`, `a && b` for `and`,
 * `a || b` for `or` (xstate's, or their JSON form), `inline` for an anonymous function.
 *
 * @internal
 */
export function guardName(guard: unknown): string {
  const higher = guardOperator(guard);
  if (higher !== null) {
    const names = higher.operands.map(guardName);
    if (higher.operator === "not") return `!${names.join("")}`;
    return names.join(higher.operator === "and" ? " && " : " || ");
  }
  if (typeof guard === "string") return guard;
  if (typeof guard === "function") return guard.name || "inline";
  if (typeof guard === "object" && guard !== null && "type" in guard) return String(guard.type);
  return "inline";
}

function actionName(action: unknown): string {
  if (typeof action === "string") return action;
  if (typeof action === "object" && action !== null && "type" in action) {
    const { type, params } = action as { type: unknown; params?: unknown };
    const refusal = (params as { refusal?: unknown } | undefined)?.refusal;
    if (type === "refuse" && typeof refusal === "string") return `refuse:${refusal}`;
    return String(type);
  }
  if (typeof action === "function") return action.name || "inline";
  return "inline";
}
