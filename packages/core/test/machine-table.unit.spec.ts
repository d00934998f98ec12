import { describe, expect, it } from "vitest";
import { assign, createMachine, log, setup, type AnyStateMachine } from "xstate";
import { compileMachineTable } from "../src/index.ts";

interface Counter {
  readonly n: number;
}
type CounterEvent = { readonly type: "inc"; readonly by: number } | { readonly type: "reset" };

/** A small machine with each construct the compiler accepts: named, inline and parameterised guards, a root fallback, `always`. */
const counter = setup({
  types: { context: {} as Counter, events: {} as CounterEvent },
  guards: {
    below: ({ context }, params: { max: number }) => context.n < params.max,
  },
  actions: {
    add: assign(({ context, event }) => ({ n: context.n + (event.type === "inc" ? event.by : 0) })),
    zero: assign({ n: 0 }),
  },
}).createMachine({
  id: "counter",
  context: { n: 0 },
  initial: "low",
  on: { reset: { target: ".low", actions: "zero" } },
  states: {
    low: {
      on: { inc: { guard: { type: "below", params: { max: 10 } }, target: "check", actions: "add" } },
    },
    check: { always: [{ guard: ({ context }) => context.n >= 5, target: "high" }, { target: "low" }] },
    high: { on: { inc: { actions: "add" } } },
  },
});

describe("compileMachineTable", () => {
  const step = compileMachineTable<Counter, CounterEvent>(counter);

  it("takes the guarded transition, then its eventless transitions, in one step", () => {
    expect(step({ value: "low", context: { n: 1 } }, { type: "inc", by: 1 })).toEqual({ value: "low", context: { n: 2 } });
    expect(step({ value: "low", context: { n: 4 } }, { type: "inc", by: 1 })).toEqual({ value: "high", context: { n: 5 } });
  });

  it("leaves state and context as they were when no transition is enabled (a parameterised guard that fails)", () => {
    const snapshot = { value: "low", context: { n: 10 } };
    expect(step(snapshot, { type: "inc", by: 1 })).toEqual(snapshot);
  });

  it("falls back to the root's transitions for an event the state does not handle", () => {
    expect(step({ value: "high", context: { n: 7 } }, { type: "reset" })).toEqual({ value: "low", context: { n: 0 } });
  });

  it("compiles a variant made with provide() to its own table", () => {
    const generous = compileMachineTable<Counter, CounterEvent>(counter.provide({ guards: { below: () => true } }));
    expect(generous({ value: "low", context: { n: 10 } }, { type: "inc", by: 1 }).value).toBe("high");
  });

  it("throws on a state it has no row for", () => {
    expect(() => step({ value: "nowhere", context: { n: 0 } }, { type: "reset" })).toThrow(/no state nowhere/);
  });

  it.each([
    ["entry actions", { initial: "a", states: { a: { entry: assign({ n: 1 }) } } }, /entry or exit actions/],
    ["nested states", { initial: "a", states: { a: { initial: "b", states: { b: {} } } } }, /type compound/],
    ["parallel states", { initial: "a", states: { a: { type: "parallel", states: { b: {} } } } }, /type parallel/],
    ["final states", { initial: "a", states: { a: { type: "final" } } }, /type final/],
    // XState turns a delay into entry and exit actions that schedule and cancel it.
    [
      "delayed transitions",
      { initial: "a", states: { a: { after: { 10: "b" } }, b: {} } },
      /entry or exit actions|delayed transitions/,
    ],
    ["wildcard events", { initial: "a", states: { a: { on: { "*": "b" } }, b: {} } }, /wildcard/],
    ["side effects", { initial: "a", states: { a: { on: { go: { actions: log("x") } } } } }, /not an assign/],
  ])("refuses a machine with %s instead of deciding it differently", (_, config, message) => {
    // A configuration typed loosely on purpose: each one holds a construct the compiler refuses.
    const machine = createMachine({ id: "odd", context: { n: 0 }, ...config } as never) as AnyStateMachine;
    expect(() => compileMachineTable(machine)).toThrow(message);
  });
});
