import type { AnyStateMachine, ContextFrom, EventFromLogic } from "xstate";
import { createInertScope } from "./machine-scope.ts";

/**
 * What a machine decided for one command (or a sequence) against one stream: either the events
 * to append, in order, with `after` their fold onto the state decided on (what the projection
 * must hold once they are appended); or a refusal, with the command it refused and nothing to
 * write. Refusals are data, not
 * exceptions: the store turns them into a `false`, an answer or a coded error.
 */
export type Decision<TState, TEvent, TRefusal, TCommandType extends string = string> =
  | { readonly accepted: true; readonly after: TState; readonly events: readonly TEvent[] }
  /** `command`: the type of the command refused (in a sequence, the first one refused). */
  | { readonly accepted: false; readonly refusal: TRefusal; readonly command: TCommandType };

/**
 * Decides commands, in order, against one stream's current state. Pure: no I/O, no clock, no
 * randomness (time and jitter arrive inside the commands). Either every command is accepted
 * (all their events, and the state they fold to) or the first refusal is returned and nothing is.
 */
export type Decider<TState, TCommand extends { readonly type: string }, TEvent, TRefusal> = (
  state: TState,
  ...commands: readonly TCommand[]
) => Decision<TState, TEvent, TRefusal, TCommand["type"]>;

/** The context every verq machine keeps: the events a transition emitted and its refusal, if any. */
export interface DecidingContext<TEvent, TRefusal> {
  readonly emitted: readonly TEvent[];
  readonly refusal: TRefusal | null;
}

/**
 * Which machine a decider runs, and where its context keeps the stream's state: every verq
 * machine's context is `{ [field]: state, emitted, refusal }`, and every state has a `state` name.
 */
export interface MachineBinding<TMachine extends AnyStateMachine, TState extends { readonly state: string }> {
  readonly machine: TMachine;
  /** The context field that holds the stream's state, e.g. `job`. */
  readonly field: string;
  /** Any valid state, to build the machine's one inert actor scope; never decided on. */
  readonly placeholder: TState;
}

type EventOf<TMachine extends AnyStateMachine> = ContextFrom<TMachine> extends DecidingContext<infer E, unknown> ? E : never;
type RefusalOf<TMachine extends AnyStateMachine> = ContextFrom<TMachine> extends DecidingContext<unknown, infer R> ? R : never;

/**
 * Builds the decider of a machine: the one path from a command to events for every verq stream.
 *
 * For each command it rebuilds the machine's snapshot from the stream's state with
 * `resolveState` (so the machine, not the caller, holds every rule) and calls the machine's own
 * pure `transition` with one reused inert actor scope (XState's top-level `transition()` builds a
 * throw-away actor per call, about four times the cost; assign-only machines need nothing from
 * the scope). A command no transition takes is refused with `unhandled`. It throws when the
 * machine's state value and the fold of its events disagree: a broken variant fails loudly
 * instead of writing a projection its own events contradict.
 */
export function createMachineDecider<TMachine extends AnyStateMachine, TState extends { readonly state: string }>(
  binding: MachineBinding<TMachine, TState>,
  unhandled: RefusalOf<TMachine>,
): Decider<TState, EventFromLogic<TMachine>, EventOf<TMachine>, RefusalOf<TMachine>> {
  const { machine, field } = binding;
  const scope = createInertScope(machine, binding.placeholder as never);
  const toContext = (state: TState) => ({ [field]: state, emitted: [], refusal: null }) as ContextFrom<TMachine>;
  return (state, ...commands) => {
    let current = state;
    const events: EventOf<TMachine>[] = [];
    for (const command of commands) {
      const snapshot = machine.resolveState({ value: current.state, context: toContext(current) });
      const next = machine.transition(snapshot, command, scope);
      const context = next.context as DecidingContext<EventOf<TMachine>, RefusalOf<TMachine>>;
      const refused = context.refusal ?? (next === snapshot || context.emitted.length === 0 ? unhandled : null);
      if (refused !== null) return { accepted: false, refusal: refused, command: (command as { type: string }).type };
      const after = (next.context as Record<string, TState>)[field] as TState;
      if (String(next.value) !== after.state) {
        throw new Error(`${machine.id} machine ended in ${String(next.value)} but its events fold to ${after.state}`);
      }
      current = after;
      events.push(...context.emitted);
    }
    return { accepted: true, after: current, events };
  };
}
