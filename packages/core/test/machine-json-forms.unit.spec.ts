import { and, createMachine, not, or, setup } from "xstate";
import { describe, expect, it } from "vitest";
import { machineGraph, machineJson } from "../src/index.ts";
import { guardOperator } from "../src/machine-graph.ts";

/*
 * machineJson on the forms of XState config that verq's six machines do not use but a declared
 * stream's machine may: final, parallel and history states, descriptions, tags, entry and exit
 * actions, several targets, inline functions, delayed transitions, `and`/`or` guards and
 * contexts that are not plain JSON. Each is written as a config `createMachine` takes back.
 */

const json = (machine: Parameters<typeof machineJson>[0]): Record<string, unknown> =>
  JSON.parse(machineJson(machine)) as Record<string, unknown>;

describe("machineJson on other forms of config", () => {
  const machine = setup({
    guards: { ready: () => true, open: () => true, late: () => false },
    actions: { log: () => undefined, tick: () => undefined },
  }).createMachine({
    id: "forms",
    context: { n: 1, list: [true, null, "a"], nested: { ok: 2 } },
    initial: "idle",
    description: "the machine",
    states: {
      idle: {
        description: "waiting",
        tags: ["quiet"],
        entry: ["log", { type: "tick", params: { by: 2 } }],
        exit: [function leaveIdle() {}, () => undefined],
        on: {
          go: { target: "busy", description: "start", actions: [{ type: "log", params: { at: 1 } }] },
          both: { guard: and(["ready", or(["open", not("late")])]), target: "busy" },
          inline: {
            guard: function isInline() {
              return true;
            },
            target: "done",
          },
        },
      },
      busy: {
        type: "parallel",
        states: {
          left: { initial: "a", states: { a: { on: { flip: "b" } }, b: {}, memory: { type: "history" } } },
          right: { initial: "c", states: { c: {} } },
        },
        on: { stop: { target: ["#forms.busy.left.b", "#forms.busy.right.c"] } },
      },
      done: { type: "final" },
    },
  });
  // Read in each test, not here: a mutation run counts only what a test itself runs.
  const read = () => {
    const config = json(machine);
    return { config, states: config.states as Record<string, Record<string, unknown>> };
  };

  it("writes types, descriptions, tags, entry and exit actions, and a plain context", () => {
    const { config, states } = read();
    expect(config.context).toEqual({ n: 1, list: [true, null, "a"], nested: { ok: 2 } });
    expect(config.description).toBe("the machine");
    expect(states.idle).toMatchObject({
      description: "waiting",
      tags: ["quiet"],
      entry: ["log", { type: "tick", params: { by: 2 } }],
      exit: ["leaveIdle", "inline"],
    });
    expect(states.busy?.type).toBe("parallel");
    expect(states.done).toEqual({ type: "final" });
    const left = (states.busy?.states as Record<string, Record<string, unknown>>).left;
    expect((left?.states as Record<string, Record<string, unknown>>).memory).toEqual({ type: "history" });
    expect(states.idle).not.toHaveProperty("type");
    expect(states.busy).not.toHaveProperty("tags");
    expect(states.busy).not.toHaveProperty("entry");
  });

  it("writes a transition's description, params, several targets and and/or guards; leaves out delayed transitions", () => {
    const { states } = read();
    const on = states.idle?.on as Record<string, Record<string, unknown>[]>;
    expect(on.go).toEqual([{ target: "busy", description: "start", actions: [{ type: "log", params: { at: 1 } }] }]);
    expect(on.both?.[0]?.guard).toEqual({
      type: "and",
      params: { guards: ["ready", { type: "or", params: { guards: ["open", { type: "not", params: { guards: ["late"] } }] } }] },
    });
    expect(on.inline?.[0]?.guard).toBe("isInline");
    const delayed = setup({ delays: { soon: 10 } }).createMachine({
      id: "delayed",
      initial: "a",
      states: { a: { after: { soon: "b" }, on: { go: "b" } }, b: {} },
    });
    const delayedOn = (json(delayed).states as Record<string, { on: Record<string, unknown> }>).a?.on ?? {};
    expect(Object.keys(delayedOn)).toEqual(["go"]);
    const stop = (states.busy?.on as Record<string, Record<string, unknown>[]>).stop;
    expect(stop?.[0]?.target).toEqual(["#forms.busy.left.b", "#forms.busy.right.c"]);
    const flip = (
      (states.busy?.states as Record<string, Record<string, unknown>>).left?.states as Record<string, Record<string, unknown>>
    ).a?.on as Record<string, Record<string, unknown>[]>;
    expect(flip.flip).toEqual([{ target: "b" }]);
  });

  it("is a config createMachine takes back, with the same states", () => {
    const { config } = read();
    const back = createMachine(config as never);
    expect(machineGraph(back).states).toEqual(machineGraph(machine).states);
  });

  it("leaves out a context that is not plain JSON: a function, a class instance, a number that is not finite", () => {
    const contexts: unknown[] = [() => ({}), { at: new Date(0) }, { n: Number.NaN }, { list: [1, undefined] }];
    for (const context of contexts) {
      const other = createMachine({ id: "c", context: context as Record<string, unknown>, initial: "a", states: { a: {} } });
      expect(json(other)).not.toHaveProperty("context");
    }
    const plain = createMachine({ id: "p", context: { flag: false, none: null, n: 0 }, initial: "a", states: { a: {} } });
    expect(json(plain).context).toEqual({ flag: false, none: null, n: 0 });
  });

  it("reads the and/or/not forms it writes back as operators", () => {
    expect(guardOperator({ type: "and", params: { guards: ["a", "b"] } })).toEqual({ operator: "and", operands: ["a", "b"] });
    expect(guardOperator({ type: "or", params: { guards: ["a"] } })).toEqual({ operator: "or", operands: ["a"] });
    expect(guardOperator({ type: "not", params: { guards: ["a"] } })).toEqual({ operator: "not", operands: ["a"] });
    expect(guardOperator({ type: "xor", params: { guards: ["a"] } })).toBeNull();
    expect(guardOperator({ type: "not", params: {} })).toBeNull();
    expect(guardOperator({ type: "not" })).toBeNull();
    expect(guardOperator("not")).toBeNull();
    expect(guardOperator(null)).toBeNull();
  });
});
