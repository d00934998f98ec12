import type { AnyStateMachine } from "xstate";
import { createMachineDecider, type Decider } from "./decider.ts";
import { VerqError } from "./errors.ts";
import { canonicalJson } from "./json.ts";
import type {
  DeclaredStreamState,
  EventSchema,
  JsonObject,
  StreamDefinition,
  StreamEventShape,
  StreamParts,
} from "./stream-types.ts";

/**
 * Builds a stream type's definition from its parts, checked once: the machine against the
 * subset its compiled table runs (`VERQ_UNSUPPORTED_MACHINE`), the initial state against the
 * machine's states and each command against the events its transitions take
 * (`VERQ_INVALID_STREAM`), the upcaster chains (`VERQ_UPCASTER_GAP`). The name is checked by the
 * caller: a service's may not be one of verq's own, verq's must be.
 */
export function buildStreamDefinition<
  TState extends { readonly state: string },
  TRefusal extends string,
  TCommand extends { readonly type: string },
  TEvent extends StreamEventShape,
>(parts: StreamParts<TState, TRefusal, TCommand, TEvent>): StreamDefinition<TState, TRefusal, TCommand, TEvent> {
  const { name, machine, initial, evolve, unhandled } = parts;
  const field = parts.field ?? "state";
  const schemas = checkSchemas(name, parts.events ?? {});
  let decider: Decider<TState, TCommand, TEvent, TRefusal>;
  try {
    decider = createMachineDecider<AnyStateMachine, TState>(
      { machine, field, placeholder: initial("placeholder") },
      unhandled,
      parts.execution,
    ) as unknown as Decider<TState, TCommand, TEvent, TRefusal>;
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
  const commandTypes = checkCommands(name, machine, parts.commands);
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
  const step = (state: DeclaredStreamState<TState>, event: TEvent): DeclaredStreamState<TState> => {
    const value = evolve(state.value, event);
    return { id: state.id, version: state.version + 1, state: value.state, value };
  };
  return {
    name,
    machine,
    commandTypes,
    states,
    fencing: parts.fencing ?? null,
    initial: (id) => ({ id, version: 0, state: checkInitial(id).state, value: checkInitial(id) }),
    schemaVersion,
    upcast,
    decider,
    decide(state, now, ...commands) {
      const machineEvents = commands.map((command) => {
        if (!commandTypes.has(command.type)) {
          throw new VerqError(
            "VERQ_UNKNOWN_COMMAND",
            `stream type "${name}" takes no command ${describeCommandType(command.type)}`,
          );
        }
        canonicalJson(command, "command");
        return { ...command, now };
      });
      const decision = decider(state.value, ...machineEvents);
      if (!decision.accepted) return { accepted: false, refusal: decision.refusal, command: decision.command };
      const { events } = decision;
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
        const data = upcast(event.type, event.schemaVersion, event.data as JsonObject) as unknown as TEvent["data"];
        current = step(current, { type: event.type, data } as TEvent);
      }
      return current;
    },
  };
}

/**
 * A command type as an error names it: quoted when it looks like a name, else only what it is
 * (a long or odd string is not echoed back).
 */
export function describeCommandType(type: unknown): string {
  if (typeof type !== "string") return `without a string type (${type === null ? "null" : typeof type})`;
  return /^[A-Za-z][\w.-]{0,63}$/.test(type) ? `"${type}"` : `of a type of ${type.length} characters that is not a name`;
}

/**
 * The command types of a stream: those declared, each an event some transition of the machine
 * takes (else `VERQ_INVALID_STREAM`: a command no transition names could only ever be refused),
 * or, when none are declared, every event the machine takes.
 */
function checkCommands(name: string, machine: AnyStateMachine, declared: readonly string[] | undefined): ReadonlySet<string> {
  const taken = (machine.root.events as readonly string[]).filter((type) => type !== "*" && !type.startsWith("xstate."));
  if (declared === undefined) return new Set(taken);
  for (const type of declared) {
    if (!taken.includes(type)) {
      throw new VerqError(
        "VERQ_INVALID_STREAM",
        `stream type "${name}": command ${describeCommandType(type)} is taken by no transition of its machine`,
      );
    }
  }
  return new Set(declared);
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
