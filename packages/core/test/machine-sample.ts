import { assign, not, setup } from "xstate";

/**
 * A small flat machine with every construct the machine readers write out: an id and state
 * names that are not identifiers, a root fallback, several transitions for one event (a refusal,
 * a `not()` guard, an unguarded one after them), a transition with neither target nor action, a
 * state with no transition, and eventless transitions.
 */
export const sampleMachine = setup({
  types: {
    context: {} as { readonly n: number },
    events: {} as { readonly type: "go" } | { readonly type: "stop" } | { readonly type: "ping.me" },
  },
  guards: { ready: ({ context }) => context.n > 0, blocked: ({ context }) => context.n < 0 },
  actions: {
    bump: assign(({ context }) => ({ n: context.n + 1 })),
    refuse: assign((_, params: { refusal: string }) => ({ n: params.refusal.length })),
  },
}).createMachine({
  id: "2 odd-id",
  context: { n: 0 },
  initial: "idle",
  on: { stop: { target: ".done state", actions: "bump" } },
  states: {
    idle: {
      on: {
        go: [
          { guard: "blocked", actions: { type: "refuse", params: { refusal: "blocked" } } },
          { guard: not("ready"), target: "busy" },
          { target: "busy", actions: ["bump", "bump"] },
        ],
        "ping.me": {},
      },
    },
    busy: { always: [{ guard: "ready", target: "idle" }, { target: "done state" }] },
    "done state": {},
  },
});
