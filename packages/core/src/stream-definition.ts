import { VerqError } from "./errors.ts";
import { buildStreamDefinition } from "./stream-builder.ts";
import type { JsonObject, StreamDeclaration, StreamDefinition, StreamEventShape, StreamParts } from "./stream-types.ts";
import { STREAM_TYPES } from "./streams.ts";

export type {
  AnyStreamDefinition,
  DeclaredCommand,
  DeclaredEvent,
  DeclaredStreamState,
  EventReader,
  EventSchema,
  JsonObject,
  StoredShape,
  StreamDeclaration,
  StreamDecision,
  StreamDefinition,
  StreamEventShape,
  StreamParts,
} from "./stream-types.ts";

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
  const { name } = declaration;
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new VerqError("VERQ_INVALID_STREAM", `a stream type name is 1 to 63 of a-z, 0-9 and "-", starting with a letter`);
  }
  if ((STREAM_TYPES as readonly string[]).includes(name)) {
    throw new VerqError("VERQ_STREAM_TYPE_TAKEN", `stream type "${name}" is one of verq's own; choose another name`);
  }
  return brand(buildStreamDefinition(declaration));
}

/**
 * Declares one of verq's own stream types (`name` one of {@link STREAM_TYPES}) through the path
 * {@link defineStream} takes for a service's, with the same checks: its machine, its initial
 * state, its commands and its event schemas. What each of verq's deciders is built from.
 */
export function defineVerqStream<
  TState extends { readonly state: string },
  TRefusal extends string,
  TCommand extends { readonly type: string },
  TEvent extends StreamEventShape,
>(parts: StreamParts<TState, TRefusal, TCommand, TEvent>): StreamDefinition<TState, TRefusal, TCommand, TEvent> {
  if (!(STREAM_TYPES as readonly string[]).includes(parts.name)) {
    throw new VerqError("VERQ_INVALID_STREAM", `stream type "${parts.name}" is not one of verq's own`);
  }
  return brand(buildStreamDefinition(parts));
}

function brand<T extends object>(definition: T): T {
  return Object.assign(definition, { [STREAM_DEFINITION_BRAND]: true });
}

export { describeCommandType } from "./stream-builder.ts";
