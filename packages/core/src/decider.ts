import type { AnyStateMachine, ContextFrom, EventFromLogic } from "xstate";
import { createInertScope } from "./machine-scope.ts";
import { compileMachineTable, type TableStep } from "./machine-table.ts";

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
 * How a decider executes its machine: `"table"` (the default) steps through the transition table
 * compiled from the machine's own definition by {@link compileMachineTable}; `"xstate"` runs
 * XState's general interpreter. Both decide the same (a property test holds them equal); the
 * interpreter is the reference, the table the hot path.
 */
export type MachineExecution = "table" | "xstate";

/**
 * Builds the decider of a machine: the one path from a command to events for every verq stream.
 *
 * For each command it takes the machine's transition from the stream's state (so the machine,
 * not the caller, holds every rule): by default through the machine's compiled transition
 * table, else (`execution: "xstate"`) by rebuilding the snapshot with `resolveState` and calling
 * the machine's own pure `transition` with one reused inert actor scope. A command no transition
 * takes is refused with `unhandled`. It throws when the machine's state and the fold of its
 * events disagree: a broken variant fails loudly instead of writing a projection its own events
 * contradict.
 */
export function createMachineDecider<TMachine extends AnyStateMachine, TState extends { readonly state: string }>(
  binding: MachineBinding<TMachine, TState>,
  unhandled: RefusalOf<TMachine>,
  execution: MachineExecution = "table",
): Decider<TState, EventFromLogic<TMachine>, EventOf<TMachine>, RefusalOf<TMachine>> {
  const { machine, field } = binding;
  const step = execution === "table" ? compileMachineTable<object, EventFromLogic<TMachine>>(machine) : interpret(binding);
  return (state, ...commands) => {
    let current = state;
    const events: EventOf<TMachine>[] = [];
    for (const command of commands) {
      const next = step({ value: current.state, context: { [field]: current, emitted: [], refusal: null } }, command);
      const context = next.context as DecidingContext<EventOf<TMachine>, RefusalOf<TMachine>>;
      const refused = context.refusal ?? (context.emitted.length === 0 ? unhandled : null);
      if (refused !== null) return { accepted: false, refusal: refused, command: (command as { type: string }).type };
      const after = (next.context as Record<string, TState>)[field] as TState;
      if (next.value !== after.state) {
        throw new Error(`${machine.id} machine ended in ${next.value} but its events fold to ${after.state}`);
      }
      current = after;
      events.push(...context.emitted);
    }
    return { accepted: true, after: current, events };
  };
}

/** A step through XState's own interpreter, for {@link MachineExecution} `"xstate"`. */
function interpret<TMachine extends AnyStateMachine, TState extends { readonly state: string }>(
  binding: MachineBinding<TMachine, TState>,
): TableStep<object, EventFromLogic<TMachine>> {
  const { machine } = binding;
  const scope = createInertScope(machine, binding.placeholder as never);
  return (snapshot, event) => {
    const resolved = machine.resolveState({ value: snapshot.value, context: snapshot.context });
    const next = machine.transition(resolved, event, scope);
    return { value: String(next.value), context: next.context as object };
  };
}
