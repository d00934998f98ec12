import type { AnyStateMachine } from "xstate";
import { guardOperator } from "./machine-graph.ts";

interface TransitionView {
  readonly target?: readonly NodeView[];
  readonly guard?: unknown;
  readonly actions: readonly unknown[];
  readonly reenter?: boolean;
  readonly description?: string;
}

interface NodeView {
  readonly id: string;
  readonly key: string;
  readonly type: string;
  readonly parent?: NodeView;
  readonly initial?: { readonly target?: readonly NodeView[] };
  readonly states: Record<string, NodeView>;
  readonly transitions: ReadonlyMap<string, readonly TransitionView[]>;
  readonly always?: readonly TransitionView[];
  readonly entry: readonly unknown[];
  readonly exit: readonly unknown[];
  readonly tags: readonly string[];
  readonly description?: string;
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/**
 * The machine as an XState v5 machine config in JSON text (two-space indent, a final line
 * break): `createMachine(JSON.parse(text))` builds it, and once a runner provides the guard and
 * action implementations with `.provide({ guards, actions })` (and the context, which is code),
 * an actor of it takes the same transitions as the machine. Written from the definition, in its
 * order: the id, `initial` as a state key, each state's `on` and `always` lists (every list an
 * array), `type: "final"` (or `parallel`, `history`) where the state has it, `entry`, `exit`,
 * `tags` and descriptions when present, and the context when it is a plain value. Targets are a
 * state's sibling key (`"pending"`), a root transition's `".pending"`, or `"#id"` otherwise;
 * `reenter: true` is kept.
 *
 * Guards and actions are named, never code: a name (`"isDue"`), or `{ type, params }` with its
 * params. Guards built with xstate's `not()`, `and()` and `or()` are written as
 * `{ "type": "not", "params": { "guards": ["noteIsValid"] } }` (and `"and"`, `"or"` with several
 * guards), each operand in the same form: a runner turns them back into `not(...)`, `and([...])`
 * and `or([...])` before `createMachine`, or provides guards named `not`, `and` and `or` that
 * evaluate `params.guards`. An anonymous guard or action is written as its function's name, or
 * `"inline"`. Delayed transitions and invoked actors are not written (verq's machines have none).
 * Pure.
 *
 * @example
 * writeFileSync("job.json", machineJson(VERQ_MACHINES.job));
 */
export function machineJson(machine: AnyStateMachine): string {
  const root = machine.root as unknown as NodeView;
  const config: Record<string, Json> = { id: machine.id };
  const context = (machine.config as { context?: unknown }).context;
  if (isJson(context)) config.context = context;
  Object.assign(config, nodeConfig(root));
  return `${JSON.stringify(config, null, 2)}\n`;
}

function nodeConfig(node: NodeView): Record<string, Json> {
  const config: Record<string, Json> = {};
  if (node.type === "final" || node.type === "parallel" || node.type === "history") config.type = node.type;
  const initial = node.initial?.target?.[0];
  if (initial !== undefined) config.initial = initial.key;
  if (node.description !== undefined) config.description = node.description;
  if (node.tags.length > 0) config.tags = [...node.tags];
  if (node.entry.length > 0) config.entry = node.entry.map(actionJson);
  if (node.exit.length > 0) config.exit = node.exit.map(actionJson);
  const on = [...node.transitions].filter(([event]) => !event.startsWith("xstate.after."));
  if (on.length > 0) {
    config.on = Object.fromEntries(on.map(([event, list]) => [event, list.map((t) => transitionJson(node, t))]));
  }
  if (node.always !== undefined && node.always.length > 0) config.always = node.always.map((t) => transitionJson(node, t));
  const states = Object.entries(node.states);
  if (states.length > 0) config.states = Object.fromEntries(states.map(([key, child]) => [key, nodeConfig(child)]));
  return config;
}

function transitionJson(source: NodeView, t: TransitionView): Json {
  const config: Record<string, Json> = {};
  const targets = (t.target ?? []).map((target) => targetJson(source, target));
  if (targets.length === 1) config.target = targets[0] ?? null;
  else if (targets.length > 1) config.target = targets;
  if (t.reenter === true) config.reenter = true;
  if (t.guard !== undefined) config.guard = guardJson(t.guard);
  if (t.actions.length > 0) config.actions = t.actions.map(actionJson);
  if (t.description !== undefined) config.description = t.description;
  return config;
}

/** A target as a config names it from `source`: a sibling by key, a child by `.key`, any other node by `#id`. */
function targetJson(source: NodeView, target: NodeView): string {
  if (source.parent !== undefined && target.parent === source.parent) return target.key;
  if (target.parent === source) return `.${target.key}`;
  return `#${target.id}`;
}

/** A guard by name: `"name"`, `{ type, params }`, or a higher-order guard's `{ type: "not", params: { guards } }`. */
function guardJson(guard: unknown): Json {
  const higher = guardOperator(guard);
  if (higher !== null) return { type: higher.operator, params: { guards: higher.operands.map(guardJson) } };
  return namedJson(guard);
}

const actionJson = (action: unknown): Json => namedJson(action);

/** A guard or an action that is not higher-order: its name, or `{ type, params }` with the params JSON keeps. */
function namedJson(value: unknown): Json {
  if (typeof value === "string") return value;
  if (typeof value === "function") return value.name || "inline";
  if (typeof value === "object" && value !== null && "type" in value) {
    const { type, params } = value as { type: unknown; params?: unknown };
    return isJson(params) ? { type: String(type), params } : { type: String(type) };
  }
  return "inline";
}

/** Whether `value` is a plain JSON value (no functions, no class instances), so that writing it loses nothing. */
function isJson(value: unknown): value is Json {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  if (typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value).every(isJson);
}
