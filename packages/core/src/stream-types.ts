import type { AnyStateMachine } from "xstate";
import type { Decision, MachineExecution } from "./decider.ts";
import type { JsonValue } from "./json.ts";

/** A JSON object: what a declared stream's commands, event data and state are. */
export type JsonObject = { readonly [key: string]: JsonValue };

/** An event a declared stream's machine emits: a type and plain JSON data with its time. */
export interface DeclaredEvent {
  readonly type: string;
  readonly data: JsonObject & { readonly at: number };
}

/** A command as a service gives it: a type and plain JSON fields. */
export interface DeclaredCommand {
  readonly type: string;
  readonly [field: string]: JsonValue;
}

/**
 * One event type's schema: its current version (1 when it never changed) and the upcasters that
 * bring its data from each older version to the next one, keyed by the version they read
 * (`{ 1: (v1) => v2, 2: (v2) => v3 }`). The log is never rewritten: reads upcast.
 */
export interface EventSchema {
  readonly version: number;
  readonly upcasters?: Readonly<Record<number, (data: JsonObject) => JsonObject>>;
}

/** What every stream's event is, whoever declares it: a type and data with its time (ms). */
export interface StreamEventShape {
  readonly type: string;
  readonly data: { readonly at: number };
}

/**
 * What a stream type is made of, whoever declares it: a service ({@link StreamDeclaration}, with
 * plain JSON commands, events and state) or verq itself (its job, GUID, file message, schedule,
 * queue and operator lock streams, whose commands carry their time). `TState` is the stream's
 * state as its machine keeps it under `context[field]`, with the name of the machine's state in
 * `state`.
 */
export interface StreamParts<
  TState extends { readonly state: string },
  TRefusal extends string,
  TCommand extends { readonly type: string },
  TEvent extends StreamEventShape,
> {
  /** The `stream_type` of its events: lower-case letters, digits and `-`. */
  readonly name: string;
  /**
   * An XState v5 machine in verq's deciding style: its context is `{ [field]: state, emitted,
   * refusal }`, each accepted transition appends its events to `emitted`, and a refusal is
   * assigned to `refusal` as data. Checked at declaration (the subset the compiled table runs).
   */
  readonly machine: AnyStateMachine;
  /** The context field that holds the stream's state; `state` when not given. */
  readonly field?: string;
  /** A new stream's state (version 0): where its first command is decided from. */
  readonly initial: (id: string) => TState;
  /** Folds one event (upcast to its current version) into the state: the machine's own fold. */
  readonly evolve: (state: TState, event: TEvent) => TState;
  /**
   * The command types a caller may send (any other is `VERQ_UNKNOWN_COMMAND`, nothing written).
   * Each must be an event some transition of the machine takes; when not given, every event the
   * machine takes is a command.
   */
  readonly commands?: readonly TCommand["type"][];
  /** The refusal of a command no transition takes in the stream's state. */
  readonly unhandled: TRefusal;
  /**
   * Fencing: the holder token the machine counts up in the state. The store keeps it beside the
   * projection, and the test kit checks that it never goes back and is never handed out twice.
   */
  readonly fencing?: { readonly token: (state: TState) => number };
  /** The schema of each event type whose shape changed (every other is version 1). */
  readonly events?: Readonly<Record<string, EventSchema>>;
  /** How the machine runs: its compiled table (default) or XState's interpreter. */
  readonly execution?: MachineExecution;
}

/**
 * What a service declares for a stream type of its own (see {@link defineStream}): its parts,
 * with plain JSON commands, events and state. verq keeps the version beside the state.
 */
export type StreamDeclaration<TState extends JsonObject & { readonly state: string }, TRefusal extends string> = StreamParts<
  TState,
  TRefusal,
  DeclaredCommand,
  DeclaredEvent
>;

/** What a declared stream decided for commands against one stream. */
export type StreamDecision<TState, TRefusal, TEvent = DeclaredEvent> =
  | { readonly accepted: true; readonly after: DeclaredStreamState<TState>; readonly events: readonly TEvent[] }
  | { readonly accepted: false; readonly refusal: TRefusal; readonly command: string };

/** A declared stream's state with the version of its last event (0: no event yet). */
export interface DeclaredStreamState<TState> {
  readonly id: string;
  readonly version: number;
  readonly state: string;
  readonly value: TState;
}

/**
 * A stream type declared with {@link defineStream} (or one of verq's own, declared the same way):
 * pure, the same in the store, tests and the visualizer.
 */
export interface StreamDefinition<
  TState extends { readonly state: string } = JsonObject & { readonly state: string },
  TRefusal extends string = string,
  TCommand extends { readonly type: string } = DeclaredCommand,
  TEvent extends StreamEventShape = DeclaredEvent,
> {
  readonly name: string;
  readonly machine: AnyStateMachine;
  readonly commandTypes: ReadonlySet<string>;
  /** The machine's states, in its order: what a stream's `state` can be. */
  readonly states: readonly string[];
  readonly fencing: { token(state: TState): number } | null;
  /** The stream's state before its first event. */
  initial(id: string): DeclaredStreamState<TState>;
  /**
   * Decides `commands` (each given the decision's time `now`) against `state`: every one
   * accepted, or the first refusal and nothing. Throws `VERQ_UNKNOWN_COMMAND` for a command type
   * not declared and `VERQ_INVALID_PAYLOAD` for a command that is not plain JSON.
   */
  decide(
    state: DeclaredStreamState<TState>,
    now: number,
    ...commands: readonly TCommand[]
  ): StreamDecision<TState, TRefusal, TEvent>;
  /**
   * The machine's own decider over the state as the machine keeps it: commands exactly as given
   * (their time already in them), no check of their types or JSON. What {@link decide} runs once
   * it has checked them, and what verq's own streams run on their hot path, where commands are
   * built by verq and never by a caller.
   */
  decider(this: void, state: TState, ...commands: readonly TCommand[]): Decision<TState, TEvent, TRefusal, TCommand["type"]>;
  /** Folds events (stored at `schemaVersion`) into `state`, each upcast to its current version first. */
  fold(state: DeclaredStreamState<TState>, events: readonly StoredShape[]): DeclaredStreamState<TState>;
  /** The current schema version of an event type (1 when it never changed). */
  readonly schemaVersion: (type: string) => number;
  /** `data` of an event of `type` stored at `from`, brought to the current version. */
  readonly upcast: (type: string, from: number, data: JsonObject) => JsonObject;
}

/** Any declared stream's definition, whatever its state and refusals: what the store and the CLI hold of many. */
export type AnyStreamDefinition = StreamDefinition;

/**
 * What a reader of the log needs of a stream type to see its events at their current shape:
 * every {@link StreamDefinition} is one.
 */
export interface EventReader {
  /** The stream type it reads. */
  readonly name: string;
  /** The current schema version of an event type (1 when it never changed). */
  readonly schemaVersion: (type: string) => number;
  /** `data` of an event of `type` stored at `from`, brought to the current version (`VERQ_EVENT_FROM_NEWER_SCHEMA` if newer). */
  readonly upcast: (type: string, from: number, data: JsonObject) => JsonObject;
}

/** An event as read from the log: its type, data as stored, and the schema version it was written with. */
export interface StoredShape {
  readonly type: string;
  readonly data: unknown;
  readonly schemaVersion: number;
}
