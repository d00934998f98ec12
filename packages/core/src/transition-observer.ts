import type { AnyStateMachine } from "xstate";

/**
 * Told of every transition a compiled machine table takes: the machine (the very object the
 * table was compiled from, so a variant made with `provide(...)` is told apart) and the
 * transition's key, `source<TAB>event<TAB>branch`, where `event` is `always` for an eventless
 * transition and `branch` the transition's place among the candidates the table tries for that
 * state and event (the state's own, then the machine's fallbacks). Only compiled tables tell it:
 * a decider run through XState's interpreter (`execution: "xstate"`) is not observed.
 */
export type TransitionObserver = (machine: AnyStateMachine, transition: string) => void;

/**
 * The observer every table calls, or null (the default: a table then pays one comparison per
 * step). Module state on purpose: the tables are compiled once, when their deciders are built,
 * long before a test run decides to record.
 *
 * @internal
 */
export let transitionObserver: TransitionObserver | null = null;

/**
 * Installs (or, with null, removes) the one observer of the transitions every compiled machine
 * table takes. For transition coverage in tests; production never installs one.
 *
 * @internal
 */
export function observeTransitions(observer: TransitionObserver | null): void {
  transitionObserver = observer;
}
