import { describe, expect, it } from "vitest";
import { and, assign, createMachine, fromPromise, not, setup, type AnyStateMachine } from "xstate";
import { compileMachineTable, observeTransitions } from "../src/index.ts";
import { sampleMachine } from "./machine-sample.ts";

interface N {
  readonly n: number;
}
type Ev = { readonly type: "go"; readonly by?: number } | { readonly type: "stop" } | { readonly type: "ping.me" };

const loose = (config: object): AnyStateMachine =>
  createMachine({ id: "odd", context: { n: 0 }, ...config } as never) as AnyStateMachine;

// Each table is compiled inside its test: what a compilation decides is then checked by that test.
describe("compileMachineTable, compiled in each test", () => {
  it("steps a machine with a refusal, a not() guard, a root fallback and eventless transitions as XState does", () => {
    const step = compileMachineTable<N, Ev>(sampleMachine);
    // blocked (n < 0): the refusal's assign runs and the machine stays.
    expect(step({ value: "idle", context: { n: -1 } }, { type: "go" })).toEqual({ value: "idle", context: { n: 7 } });
    // !ready (n <= 0): to busy, whose eventless transitions go on to done state (ready is false).
    expect(step({ value: "idle", context: { n: 0 } }, { type: "go" })).toEqual({ value: "done state", context: { n: 0 } });
    // ready: the unguarded transition bumps twice, then busy goes back to idle at once.
    expect(step({ value: "idle", context: { n: 1 } }, { type: "go" })).toEqual({ value: "idle", context: { n: 3 } });
    // An event the state does not handle, not in the root either: no transition of it, but the eventless ones run.
    expect(step({ value: "busy", context: { n: 5 } }, { type: "go" })).toEqual({ value: "idle", context: { n: 5 } });
    expect(step({ value: "done state", context: { n: 5 } }, { type: "go" })).toEqual({ value: "done state", context: { n: 5 } });
    // The root's fallback, from every state.
    for (const value of ["idle", "busy", "done state"]) {
      expect(step({ value, context: { n: 2 } }, { type: "stop" })).toEqual({ value: "done state", context: { n: 3 } });
    }
    // A transition with neither target nor action: taken, and nothing changes.
    expect(step({ value: "idle", context: { n: 4 } }, { type: "ping.me" })).toEqual({ value: "idle", context: { n: 4 } });
  });

  it("tells the observer each transition it takes, keyed source, event and branch, the eventless ones as `always`", () => {
    const step = compileMachineTable<N, Ev>(sampleMachine);
    const seen: string[] = [];
    observeTransitions((machine, key) => {
      expect(machine).toBe(sampleMachine);
      seen.push(key);
    });
    try {
      step({ value: "idle", context: { n: 0 } }, { type: "go" });
      step({ value: "idle", context: { n: -1 } }, { type: "go" });
      step({ value: "busy", context: { n: 1 } }, { type: "stop" });
    } finally {
      observeTransitions(null);
    }
    expect(seen).toEqual(["idle\tgo\t1", "busy\talways\t1", "idle\tgo\t0", "busy\tstop\t0"]);
    step({ value: "idle", context: { n: 0 } }, { type: "go" });
    expect(seen).toHaveLength(4);
  });

  it("tries a state's own transitions before the root's for the same event, and the root's when none of its own is enabled", () => {
    const machine = setup({ types: { context: {} as N, events: {} as Ev } }).createMachine({
      id: "both",
      context: { n: 0 },
      initial: "a",
      on: { go: { target: ".b", actions: assign({ n: 100 }) } },
      states: {
        a: { on: { go: { guard: ({ context }) => context.n > 5, target: "b", actions: assign({ n: 1 }) } } },
        b: { on: { stop: { guard: ({ context }) => context.n > 5, target: "a" } } },
      },
    });
    const step = compileMachineTable<N, Ev>(machine);
    expect(step({ value: "a", context: { n: 6 } }, { type: "go" })).toEqual({ value: "b", context: { n: 1 } });
    expect(step({ value: "a", context: { n: 0 } }, { type: "go" })).toEqual({ value: "b", context: { n: 100 } });
    // b's own stop fails and the root has none: nothing is taken.
    expect(step({ value: "b", context: { n: 0 } }, { type: "stop" })).toEqual({ value: "b", context: { n: 0 } });
  });

  it("resolves guard parameters given as a function, aliased guards, and() guards, and every form of assign", () => {
    const machine = setup({
      types: { context: {} as { n: number; m: number; tag: string }, events: {} as { type: "go"; by: number } },
      guards: {
        below: ({ context }, params: { max: number }) => context.n < params.max,
        small: ({ event }) => event.by < 10,
        alias: "small" as never,
      },
      actions: {
        add: assign(({ context }, params: { by: number }) => ({ n: context.n + params.by })),
        mark: assign({ m: ({ context }) => context.m + 1, tag: "marked" }),
      },
    }).createMachine({
      id: "forms",
      context: { n: 0, m: 0, tag: "" },
      initial: "a",
      states: {
        a: {
          on: {
            go: [
              {
                guard: and([
                  { type: "below", params: ({ event }: { event: { by: number } }) => ({ max: event.by }) } as never,
                  "alias",
                ]),
                target: "b",
                actions: [{ type: "add", params: ({ event }) => ({ by: event.by }) }, "mark", assign({ tag: "inline" })],
              },
            ],
          },
        },
        b: {},
      },
    });
    const step = compileMachineTable<{ n: number; m: number; tag: string }, { type: "go"; by: number }>(machine);
    expect(step({ value: "a", context: { n: 2, m: 0, tag: "" } }, { type: "go", by: 3 })).toEqual({
      value: "b",
      context: { n: 5, m: 1, tag: "inline" },
    });
    expect(step({ value: "a", context: { n: 3, m: 0, tag: "" } }, { type: "go", by: 3 }).value).toBe("a");
    expect(step({ value: "a", context: { n: 2, m: 0, tag: "" } }, { type: "go", by: 30 }).value).toBe("a");
    const negated = setup({ types: { context: {} as N, events: {} as Ev } }).createMachine({
      id: "neg",
      context: { n: 0 },
      initial: "a",
      states: { a: { on: { go: { guard: not(({ context }) => context.n > 0), target: "b" } } }, b: {} },
    });
    const stepNeg = compileMachineTable<N, Ev>(negated);
    expect(stepNeg({ value: "a", context: { n: 0 } }, { type: "go" }).value).toBe("b");
    expect(stepNeg({ value: "a", context: { n: 1 } }, { type: "go" }).value).toBe("a");
  });

  it("resolves a named guard whose parameters are a function of the event, and a guard named after another", () => {
    const machine = setup({
      types: { context: {} as N, events: {} as { type: "go"; by: number } },
      guards: {
        below: ({ context }, params: { max: number }) => context.n < params.max,
        positive: ({ event }) => event.by > 0,
        alias: "positive" as never,
      },
    }).createMachine({
      id: "named",
      context: { n: 0 },
      initial: "a",
      states: {
        a: {
          on: {
            go: [
              { guard: { type: "below", params: ({ event }) => ({ max: event.by }) }, target: "b" },
              { guard: "alias", target: "c" },
            ],
          },
        },
        b: {},
        c: {},
      },
    });
    const step = compileMachineTable<N, { type: "go"; by: number }>(machine);
    expect(step({ value: "a", context: { n: 2 } }, { type: "go", by: 3 }).value).toBe("b");
    expect(step({ value: "a", context: { n: 3 } }, { type: "go", by: 3 }).value).toBe("c");
    expect(step({ value: "a", context: { n: 3 } }, { type: "go", by: -1 }).value).toBe("a");
  });

  it("stops at an enabled eventless transition that neither moves nor acts, as XState does", () => {
    const idle = setup({ types: { context: {} as N } }).createMachine({
      id: "idle",
      context: { n: 0 },
      initial: "a",
      states: { a: { on: { go: "b" } }, b: { always: { guard: () => true } } },
    });
    expect(compileMachineTable<N, Ev>(idle)({ value: "a", context: { n: 0 } }, { type: "go" })).toEqual({
      value: "b",
      context: { n: 0 },
    });
  });

  it("throws when eventless transitions loop, naming the machine and the state", () => {
    const looping = setup({ types: { context: {} as N } }).createMachine({
      id: "spin",
      context: { n: 0 },
      initial: "a",
      states: { a: { on: { go: "b" } }, b: { always: { actions: assign(({ context }) => ({ n: context.n + 1 })) } } },
    });
    const step = compileMachineTable<N, Ev>(looping);
    expect(() => step({ value: "a", context: { n: 0 } }, { type: "go" })).toThrow(
      new Error("spin machine loops on eventless transitions in b"),
    );
  });

  it.each([
    [
      "entry actions",
      { initial: "a", states: { a: { entry: assign({ n: 1 }) } } },
      "odd machine: state a has entry or exit actions, which the transition table does not compile",
    ],
    [
      "exit actions",
      { initial: "a", states: { a: { exit: assign({ n: 1 }) } } },
      "odd machine: state a has entry or exit actions, which the transition table does not compile",
    ],
    [
      "a nested state",
      { initial: "a", states: { a: { initial: "b", states: { b: {} } } } },
      "odd machine: state a has type compound, which the transition table does not compile",
    ],
    [
      "a parallel root",
      { type: "parallel", states: { a: {}, b: {} } },
      "odd machine: the root has type parallel, which the transition table does not compile",
    ],
    [
      "root entry actions",
      { initial: "a", entry: assign({ n: 1 }), states: { a: {} } },
      "odd machine: the root has entry or exit actions, which the transition table does not compile",
    ],
    [
      "an invoked actor",
      { initial: "a", states: { a: { invoke: { src: fromPromise(() => Promise.resolve(1)) } } } },
      "odd machine: state a has invoked actors, which the transition table does not compile",
    ],
    [
      "root eventless transitions",
      { initial: "a", always: { target: ".a" }, states: { a: {} } },
      "odd machine: the root has eventless transitions, which the transition table does not compile",
    ],
    [
      "a wildcard event",
      { initial: "a", states: { a: { on: { "*": "a" } } } },
      "odd machine: state a has a wildcard event *, which the transition table does not compile",
    ],
    [
      "a nested target",
      { initial: "a", on: { go: ".a.b" }, states: { a: { initial: "b", states: { b: {} } } } },
      "odd machine: a transition to a nested state (b) is not compiled",
    ],
    [
      "a guard of no known shape",
      { initial: "a", states: { a: { on: { go: { guard: 42 } } } } },
      "odd machine: a guard of an unknown shape is not compiled",
    ],
    [
      "a guard not implemented",
      { initial: "a", states: { a: { on: { go: { guard: "missing" } } } } },
      "odd machine: guard missing is not implemented",
    ],
    [
      "an inline side effect",
      { initial: "a", states: { a: { on: { go: { actions: () => {} } } } } },
      "odd machine: action (inline) is not an assign, which the table does not compile",
    ],
    [
      "a named side effect",
      { initial: "a", states: { a: { on: { go: { actions: "tell" } } } } },
      "odd machine: action tell is not an assign, which the table does not compile",
    ],
  ])("refuses %s, saying what and where", (_, config, message) => {
    expect(() => compileMachineTable(loose(config))).toThrow(new Error(message));
  });
});
