import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import type { VERQ_MACHINES, VerqMachineName } from "@verq/core";

/** A machine as @verq/core types its own (this package does not depend on xstate itself). */
export type AnyMachine = (typeof VERQ_MACHINES)[VerqMachineName];

/** XState's `createMachine`, loaded from where @verq/core finds it. */
export async function loadCreateMachine(): Promise<(config: object) => AnyMachine> {
  const fromCore = createRequire(new URL("../../../core/package.json", import.meta.url));
  const xstate = (await import(pathToFileURL(fromCore.resolve("xstate")).href)) as {
    createMachine: (config: object) => AnyMachine;
  };
  return xstate.createMachine;
}

/** One transition as XState's `toJSON()` writes it. */
interface TransitionJson {
  readonly target?: readonly string[];
  readonly guard?: string;
  readonly actions: readonly unknown[];
  readonly reenter?: boolean;
}

/** One state node as XState's `toJSON()` writes it (with `always`, as `verq viz` adds it). */
export interface StateNodeJson {
  readonly id: string;
  readonly key: string;
  readonly initial?: { readonly target: readonly string[] };
  readonly states: Record<string, StateNodeJson>;
  readonly on: Record<string, readonly TransitionJson[]>;
  readonly always?: readonly TransitionJson[];
}

/**
 * A machine config rebuilt from a machine's JSON export alone: the states, the initial state,
 * and every transition of `on` and `always` with its targets (XState's `#id` references, which
 * a config takes as they are), guard name, actions and `reenter`. No implementations.
 */
export function configFromJson(node: StateNodeJson): object {
  const initialId = node.initial?.target[0]?.replace(/^#/, "");
  const initial = Object.values(node.states).find((child) => child.id === initialId)?.key;
  return {
    ...(node.id === node.key ? { id: node.id } : {}),
    ...(initial === undefined ? {} : { initial }),
    on: Object.fromEntries(Object.entries(node.on).map(([event, list]) => [event, list.map(transitionConfig)])),
    ...(node.always === undefined ? {} : { always: node.always.map(transitionConfig) }),
    states: Object.fromEntries(Object.entries(node.states).map(([key, child]) => [key, configFromJson(child)])),
  };
}

function transitionConfig(t: TransitionJson): object {
  return {
    ...(t.target === undefined ? {} : { target: [...t.target] }),
    ...(t.guard === undefined ? {} : { guard: t.guard }),
    actions: [...t.actions],
    reenter: t.reenter === true,
  };
}
