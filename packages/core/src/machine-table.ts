import type { AnyStateMachine } from "xstate";
import { transitionObserver } from "./transition-observer.ts";

/** A flat machine's state: the name of its one active state and its context. */
export interface TableSnapshot<TContext> {
  readonly value: string;
  readonly context: TContext;
}

/**
 * One macrostep of a flat machine: the event's first enabled transition (the state's own, then
 * the machine's top-level fallbacks), then its eventless (`always`) transitions until none is
 * enabled. Returns the state and context it ends in, the given ones when nothing was enabled.
 */
export type TableStep<TContext, TEvent> = (snapshot: TableSnapshot<TContext>, event: TEvent) => TableSnapshot<TContext>;

/**
 * A compiled transition: its guard (null: always enabled), target state (null: stays), actions
 * and key (`source<TAB>event<TAB>branch`, what a `TransitionObserver` is told).
 */
interface Edge {
  readonly key: string;
  readonly guard: ((context: unknown, event: unknown) => boolean) | null;
  readonly target: string | null;
  readonly actions: readonly ((context: unknown, event: unknown) => unknown)[];
}

interface Row {
  /** Candidate transitions per event type, in XState's order: the state's own, then the root's. */
  readonly on: ReadonlyMap<string, readonly Edge[]>;
  readonly always: readonly Edge[];
}

/** An eventless chain longer than this is a cycle in the machine, not a decision. */
const MAX_EVENTLESS_STEPS = 100;

/**
 * Compiles a machine's own definition into a transition table, once: for each state and event
 * type, the candidate transitions with their guards and assign actions resolved from the
 * machine's implementations (so a variant made with `machine.provide(...)` compiles to its own
 * table). Stepping through the table takes a fraction of a microsecond, where XState's general
 * interpreter (snapshot resolution, exit and entry sets, action queues) takes several: the rules
 * are the machine's, only their execution is specialised.
 *
 * Only what verq's machines use is compiled, and anything else throws here instead of being
 * decided differently: one level of atomic states under the root, guarded transitions
 * (named, parameterised or higher-order such as `not(...)`), `always` transitions, and `assign`
 * actions. Entry and exit actions, nested, parallel, final and history states, delayed
 * transitions, invoked actors, wildcard events and side-effecting actions are refused. A test
 * holds the table equal to XState's own `transition` over random command sequences.
 *
 * Each transition a step takes is told to the observer installed with `observeTransitions`, if
 * any (transition coverage in tests; none is installed otherwise, and a step then pays one null
 * check per transition).
 */
export function compileMachineTable<TContext, TEvent extends { readonly type: string }>(
  machine: AnyStateMachine,
): TableStep<TContext, TEvent> {
  const root = machine.root;
  refuseUnsupported(machine.id, "the root", root, true);
  const rootEdges = compileTransitions(machine, root);
  const rows = new Map<string, Row>();
  for (const [key, node] of Object.entries(root.states)) {
    refuseUnsupported(machine.id, `state ${key}`, node, false);
    const own = compileTransitions(machine, node);
    const on = new Map<string, readonly Edge[]>();
    for (const [type, edges] of rootEdges) if (!own.has(type)) on.set(type, keyed(key, type, edges));
    for (const [type, edges] of own) on.set(type, keyed(key, type, [...edges, ...(rootEdges.get(type) ?? [])]));
    rows.set(key, {
      on,
      always: keyed(
        key,
        "always",
        (node.always ?? []).map((t) => compileEdge(machine, t)),
      ),
    });
  }
  const rowOf = (value: string): Row => {
    const row = rows.get(value);
    if (row === undefined) throw new Error(`${machine.id} machine has no state ${value}`);
    return row;
  };

  // Plain loops and no closure made per call: this runs for every decision of every job.
  const enabled = (edges: readonly Edge[], context: unknown, event: TEvent): Edge | undefined => {
    for (const edge of edges) if (edge.guard === null || edge.guard(context, event)) return edge;
    return undefined;
  };
  return (snapshot, event) => {
    let value = snapshot.value;
    let context: unknown = snapshot.context;
    const candidates = rowOf(value).on.get(event.type);
    const first = candidates === undefined ? undefined : enabled(candidates, context, event);
    if (first !== undefined) {
      if (transitionObserver !== null) transitionObserver(machine, first.key);
      for (const action of first.actions) context = action(context, event);
      if (first.target !== null) value = first.target;
    }
    for (let steps = 0; ; steps++) {
      const edge = enabled(rowOf(value).always, context, event);
      // A transition that changes nothing leaves the machine where it is, as in XState.
      if (edge === undefined || (edge.target === null && edge.actions.length === 0)) break;
      if (steps === MAX_EVENTLESS_STEPS) throw new Error(`${machine.id} machine loops on eventless transitions in ${value}`);
      if (transitionObserver !== null) transitionObserver(machine, edge.key);
      for (const action of edge.actions) context = action(context, event);
      if (edge.target !== null) value = edge.target;
    }
    return { value, context: context as TContext };
  };
}

/** The subset of XState's state node this compiler reads. */
interface NodeView {
  readonly type: string;
  readonly states: Record<string, NodeView>;
  readonly entry: readonly unknown[];
  readonly exit: readonly unknown[];
  readonly invoke: readonly unknown[];
  readonly after: readonly unknown[];
  readonly always?: readonly TransitionView[];
  readonly transitions: ReadonlyMap<string, readonly TransitionView[]>;
}

interface TransitionView {
  readonly guard?: unknown;
  readonly target?: readonly { readonly key: string; readonly parent?: unknown }[];
  readonly actions: readonly unknown[];
}

function refuseUnsupported(id: string, where: string, node: NodeView, isRoot: boolean): void {
  const refuse = (what: string) => {
    throw new Error(`${id} machine: ${where} has ${what}, which the transition table does not compile`);
  };
  if (isRoot ? node.type !== "compound" : node.type !== "atomic") refuse(`type ${node.type}`);
  if (node.entry.length > 0 || node.exit.length > 0) refuse("entry or exit actions");
  if (node.invoke.length > 0) refuse("invoked actors");
  if (node.after.length > 0) refuse("delayed transitions");
  if (isRoot && (node.always?.length ?? 0) > 0) refuse("eventless transitions");
  for (const type of node.transitions.keys()) if (type.includes("*")) refuse(`a wildcard event ${type}`);
}

function compileTransitions(machine: AnyStateMachine, node: NodeView): Map<string, readonly Edge[]> {
  const edges = new Map<string, readonly Edge[]>();
  for (const [type, transitions] of node.transitions)
    edges.set(
      type,
      transitions.map((t) => compileEdge(machine, t)),
    );
  return edges;
}

/** The candidates of one state and event, each keyed by its place among them. */
function keyed(source: string, event: string, edges: readonly Edge[]): readonly Edge[] {
  return edges.map((edge, branch) => ({ ...edge, key: `${source}\t${event}\t${branch}` }));
}

function compileEdge(machine: AnyStateMachine, transition: TransitionView): Edge {
  const targets = transition.target ?? [];
  if (targets.length > 1) throw new Error(`${machine.id} machine: a transition with several targets is not compiled`);
  const target = targets[0];
  if (target !== undefined && target.parent !== machine.root) {
    throw new Error(`${machine.id} machine: a transition to a nested state (${target.key}) is not compiled`);
  }
  return {
    key: "",
    guard: transition.guard === undefined ? null : compileGuard(machine, transition.guard),
    target: target?.key ?? null,
    actions: transition.actions.map((action) => compileAction(machine, action)),
  };
}

type GuardImplementation = ((args: unknown, params: unknown) => boolean) & {
  readonly check?: (snapshot: unknown, args: unknown, guard: unknown) => boolean;
};

/** Resolves a guard as XState's `evaluateGuard` does: inline, by name, or `{ type, params }`; higher-order guards check themselves. */
function compileGuard(machine: AnyStateMachine, guard: unknown): (context: unknown, event: unknown) => boolean {
  if (typeof guard !== "function" && typeof guard !== "string" && !isTyped(guard)) {
    throw new Error(`${machine.id} machine: a guard of an unknown shape is not compiled`);
  }
  const named = typeof guard === "function" ? null : typeof guard === "string" ? guard : guard.type;
  const resolved = named === null ? guard : (machine.implementations.guards as Record<string, unknown>)[named];
  if (resolved === undefined) throw new Error(`${machine.id} machine: guard ${String(named)} is not implemented`);
  if (typeof resolved !== "function") return compileGuard(machine, resolved);
  const implementation = resolved as GuardImplementation;
  const params = isTyped(guard) ? guard.params : undefined;
  const check = implementation.check;
  if (check !== undefined) {
    // not(), and(), or(): XState evaluates their operands against the snapshot's machine.
    const snapshot = { machine };
    return (context, event) => check(snapshot, { context, event }, implementation);
  }
  if (typeof params === "function") {
    return (context, event) => implementation({ context, event }, (params as (a: unknown) => unknown)({ context, event }));
  }
  return (context, event) => implementation({ context, event }, params);
}

/** Resolves an action as XState does; only `assign` compiles, as a pure context update. */
function compileAction(machine: AnyStateMachine, action: unknown): (context: unknown, event: unknown) => unknown {
  const named = typeof action === "function" ? null : typeof action === "string" ? action : isTyped(action) ? action.type : null;
  const resolved = named === null ? action : (machine.implementations.actions as Record<string, unknown>)[named];
  const assignment =
    (resolved as { type?: unknown; assignment?: unknown } | undefined)?.type === "xstate.assign"
      ? (resolved as { assignment: unknown }).assignment
      : undefined;
  if (assignment === undefined) {
    throw new Error(
      `${machine.id} machine: action ${String(named ?? "(inline)")} is not an assign, which the table does not compile`,
    );
  }
  const params = isTyped(action) ? action.params : undefined;
  return (context, event) => {
    const args = { context, event };
    const resolvedParams = typeof params === "function" ? (params as (a: unknown) => unknown)(args) : params;
    let update: Record<string, unknown>;
    if (typeof assignment === "function") {
      update = (assignment as (a: unknown, p: unknown) => Record<string, unknown>)(args, resolvedParams);
    } else {
      update = {};
      for (const [key, value] of Object.entries(assignment as Record<string, unknown>)) {
        update[key] = typeof value === "function" ? (value as (a: unknown, p: unknown) => unknown)(args, resolvedParams) : value;
      }
    }
    return Object.assign({}, context, update);
  };
}

function isTyped(value: unknown): value is { readonly type: string; readonly params?: unknown } {
  return typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";
}
