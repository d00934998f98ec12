import { and, createMachine, not, or, type AnyStateMachine } from "xstate";

/** What a runner supplies to a machine read from its JSON: the code the JSON only names. */
export interface JsonMachineImplementations {
  readonly guards: Record<string, unknown>;
  readonly actions: Record<string, unknown>;
  /** The machine's context, or the function that makes it from the input. */
  readonly context: unknown;
}

type Guard = Parameters<typeof not>[0];

/**
 * The guard a config's JSON names, as xstate takes it: `{ type: "not", params: { guards: [g] } }`
 * becomes `not(g)`, `"and"` and `"or"` become `and([...])` and `or([...])`, each operand resolved
 * the same way; a name or any other `{ type, params }` is kept.
 */
export function resolveGuard(guard: unknown): unknown {
  if (typeof guard !== "object" || guard === null) return guard;
  const { type, params } = guard as { type?: unknown; params?: { guards?: unknown } };
  const operands = params?.guards;
  if (!Array.isArray(operands) || (type !== "not" && type !== "and" && type !== "or")) return guard;
  const resolved = operands.map(resolveGuard) as Guard[];
  if (type === "and") return and(resolved);
  if (type === "or") return or(resolved);
  const [operand] = resolved;
  if (resolved.length !== 1 || operand === undefined) throw new Error(`a not guard takes one guard, not ${resolved.length}`);
  return not(operand);
}

/** A copy of a config with every transition's `guard` resolved by {@link resolveGuard}. */
function resolveGuards(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolveGuards);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [key, key === "guard" ? resolveGuard(child) : resolveGuards(child)]),
  );
}

/**
 * What a runner of `verq viz`'s `<name>.json` does: parses the config, resolves its higher-order
 * guards to xstate's, gives it the context, builds it with `createMachine` and provides the
 * guard and action implementations by name.
 */
export function machineFromJson(json: string, implementations: JsonMachineImplementations): AnyStateMachine {
  const config = resolveGuards(JSON.parse(json)) as Record<string, unknown>;
  const machine = createMachine({ ...config, context: implementations.context } as Parameters<typeof createMachine>[0]);
  return machine.provide({ guards: implementations.guards, actions: implementations.actions } as never);
}

/** The implementations of `machine` a runner would supply to its JSON: its own guards, actions and context. */
export function implementationsOf(machine: AnyStateMachine): JsonMachineImplementations {
  const { guards, actions } = machine.implementations as { guards: Record<string, unknown>; actions: Record<string, unknown> };
  return { guards, actions, context: (machine.config as { context?: unknown }).context };
}
