import type { AnyStateMachine } from "xstate";
import { createMachineDecider, type MachineExecution } from "./decider.ts";
import { VerqError } from "./errors.ts";
import { canonicalJson, type JsonValue } from "./json.ts";
import { STREAM_TYPES } from "./streams.ts";

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

/**
 * What a service declares for a stream type of its own (see {@link defineStream}). `TState` is
 * the stream's state as its machine keeps it under `context[field]`: plain JSON with the name of
 * the machine's state in `state`. verq keeps the version beside it.
 */
export interface StreamDeclaration<TState extends JsonObject & { readonly state: string }, TRefusal extends string> {
  /** The `stream_type` of its events: lower-case letters, digits and `-`, not one of verq's own. */
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
  readonly evolve: (state: TState, event: DeclaredEvent) => TState;
  /** The command types a caller may send; any other is `VERQ_UNKNOWN_COMMAND`, nothing written. */
  readonly commands: readonly string[];
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

/** What a declared stream decided for commands against one stream. */
export type StreamDecision<TState, TRefusal> =
  | { readonly accepted: true; readonly after: DeclaredStreamState<TState>; readonly events: readonly DeclaredEvent[] }
  | { readonly accepted: false; readonly refusal: TRefusal; readonly command: string };

/** A declared stream's state with the version of its last event (0: no event yet). */
export interface DeclaredStreamState<TState> {
  readonly id: string;
  readonly version: number;
  readonly state: string;
  readonly value: TState;
}

/** A stream type declared with {@link defineStream}: pure, the same in the store, tests and the visualizer. */
export interface StreamDefinition<
  TState extends JsonObject & { readonly state: string } = JsonObject & { readonly state: string },
  TRefusal extends string = string,
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
    ...commands: readonly DeclaredCommand[]
  ): StreamDecision<TState, TRefusal>;
  /** Folds events (stored at `schemaVersion`) into `state`, each upcast to its current version first. */
  fold(state: DeclaredStreamState<TState>, events: readonly StoredShape[]): DeclaredStreamState<TState>;
  /** The current schema version of an event type (1 when it never changed). */
  readonly schemaVersion: (type: string) => number;
  /** `data` of an event of `type` stored at `from`, brought to the current version. */
  readonly upcast: (type: string, from: number, data: JsonObject) => JsonObject;
}

/** Any declared stream's definition, whatever its state and refusals: what the store and the CLI hold of many. */
export type AnyStreamDefinition = StreamDefinition;

/** An event as read from the log: its type, data as stored, and the schema version it was written with. */
export interface StoredShape {
  readonly type: string;
  readonly data: unknown;
  readonly schemaVersion: number;
}

const NAME = /^[a-z][a-z0-9-]{0,62}$/;

const STREAM_DEFINITION_BRAND = Symbol.for("verq.stream-definition");

/**
 * True for what {@link defineStream} returned (across copies of this package too): how the CLI
 * finds the definitions a service's module exports (`--streams`).
 */
export function isStreamDefinition(value: unknown): value is StreamDefinition {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[STREAM_DEFINITION_BRAND] === true;
}

/**
 * Declares a stream type from a machine: checks the declaration once (the name, the machine
 * against the subset its compiled table runs, the upcaster chains) and returns its pure decider
 * and fold. Every problem is a `VerqError` naming it: `VERQ_INVALID_STREAM` (a bad name, field
 * or initial state), `VERQ_STREAM_TYPE_TAKEN` (one of verq's own stream types),
 * `VERQ_UNSUPPORTED_MACHINE` (what the table cannot compile) or `VERQ_UPCASTER_GAP`.
 *
 * @example
 * const orders = defineStream({ name: "order", machine: orderMachine, initial: newOrder,
 *   evolve: evolveOrder, commands: ["place", "pay", "ship", "cancel"], unhandled: "unhandled" });
 */
export function defineStream<TState extends JsonObject & { readonly state: string }, TRefusal extends string>(
  declaration: StreamDeclaration<TState, TRefusal>,
): StreamDefinition<TState, TRefusal> {
  const { name, machine, initial, evolve, unhandled } = declaration;
  const field = declaration.field ?? "state";
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new VerqError("VERQ_INVALID_STREAM", `a stream type name is 1 to 63 of a-z, 0-9 and "-", starting with a letter`);
  }
  if ((STREAM_TYPES as readonly string[]).includes(name)) {
    throw new VerqError("VERQ_STREAM_TYPE_TAKEN", `stream type "${name}" is one of verq's own; choose another name`);
  }
  const schemas = checkSchemas(name, declaration.events ?? {});
  let decider: ReturnType<typeof createMachineDecider<AnyStateMachine, TState>>;
  try {
    decider = createMachineDecider<AnyStateMachine, TState>(
      { machine, field, placeholder: initial("placeholder") },
      unhandled,
      declaration.execution,
    );
  } catch (error) {
    throw new VerqError("VERQ_UNSUPPORTED_MACHINE", `stream type "${name}": ${(error as Error).message}`, { cause: error });
  }
  const states = Object.keys(machine.root.states);
  const checkInitial = (id: string): TState => {
    const value = initial(id);
    if (!states.includes(value.state)) {
      throw new VerqError(
        "VERQ_INVALID_STREAM",
        `stream type "${name}": initial state "${value.state}" is not a state of its machine`,
      );
    }
    return value;
  };
  checkInitial("placeholder");
  const commandTypes = new Set(declaration.commands);
  const schemaVersion = (type: string): number => schemas.get(type)?.version ?? 1;
  const upcast = (type: string, from: number, data: JsonObject): JsonObject => {
    const schema = schemas.get(type);
    if (from > (schema?.version ?? 1)) {
      throw new VerqError(
        "VERQ_EVENT_FROM_NEWER_SCHEMA",
        `stream type "${name}": event ${type} was written at version ${from}, newer than this code's ${schema?.version ?? 1}; upgrade before reading it`,
      );
    }
    let current = data;
    for (let v = from; v < (schema?.version ?? 1); v++)
      current = (schema?.upcasters?.[v] as (d: JsonObject) => JsonObject)(current);
    return current;
  };
  const step = (state: DeclaredStreamState<TState>, event: DeclaredEvent): DeclaredStreamState<TState> => {
    const value = evolve(state.value, event);
    return { id: state.id, version: state.version + 1, state: value.state, value };
  };
  const definition: StreamDefinition<TState, TRefusal> = {
    name,
    machine,
    commandTypes,
    states,
    fencing: declaration.fencing ?? null,
    initial: (id) => ({ id, version: 0, state: checkInitial(id).state, value: checkInitial(id) }),
    schemaVersion,
    upcast,
    decide(state, now, ...commands) {
      const machineEvents = commands.map((command) => {
        if (!commandTypes.has(command.type)) {
          throw new VerqError(
            "VERQ_UNKNOWN_COMMAND",
            `stream type "${name}" takes no command ${describeCommandType(command.type)}`,
          );
        }
        canonicalJson(command, "a command");
        return { ...command, now };
      });
      const decision = decider(state.value, ...(machineEvents as never[]));
      if (!decision.accepted)
        return { accepted: false, refusal: decision.refusal as TRefusal, command: decision.command as string };
      const events = decision.events as readonly DeclaredEvent[];
      for (const event of events) {
        if (typeof event.data?.at !== "number" || !Number.isFinite(event.data.at)) {
          throw new Error(`stream type "${name}": event ${event.type} has no numeric data.at`);
        }
      }
      const after = { id: state.id, version: state.version + events.length, state: decision.after.state, value: decision.after };
      return { accepted: true, after, events };
    },
    fold(state, events) {
      let current = state;
      for (const event of events) {
        const data = upcast(event.type, event.schemaVersion, event.data as JsonObject) as DeclaredEvent["data"];
        current = step(current, { type: event.type, data });
      }
      return current;
    },
  };
  return Object.assign(definition, { [STREAM_DEFINITION_BRAND]: true });
}

/**
 * A command type as an error names it: quoted when it looks like a name, else only what it is
 * (a long or odd string is not echoed back).
 */
export function describeCommandType(type: unknown): string {
  if (typeof type !== "string") return `without a string type (${type === null ? "null" : typeof type})`;
  return /^[A-Za-z][\w.-]{0,63}$/.test(type) ? `"${type}"` : `of a type of ${type.length} characters that is not a name`;
}

/** Each event type's schema, checked: a whole version from 1 and an upcaster for every step below it. */
function checkSchemas(name: string, events: Readonly<Record<string, EventSchema>>): Map<string, EventSchema> {
  const schemas = new Map<string, EventSchema>();
  for (const [type, schema] of Object.entries(events)) {
    if (!Number.isSafeInteger(schema.version) || schema.version < 1) {
      throw new VerqError(
        "VERQ_INVALID_STREAM",
        `stream type "${name}": event ${type} has version ${String(schema.version)}, not a whole number from 1`,
      );
    }
    for (let v = 1; v < schema.version; v++) {
      if (typeof schema.upcasters?.[v] !== "function") {
        throw new VerqError(
          "VERQ_UPCASTER_GAP",
          `stream type "${name}": event ${type} is at version ${schema.version} but has no upcaster from version ${v} to ${v + 1}`,
        );
      }
    }
    schemas.set(type, schema);
  }
  return schemas;
}
