import type { AnyStreamDefinition, JsonObject } from "@verq/core";
import type { StoredEvent } from "../sql/events/storedEvent.ts";

/** The declared definitions by stream type, for {@link upcastEvents}. */
export type DefinitionsByType = ReadonlyMap<string, AnyStreamDefinition>;

/** `definitions` by their stream type. */
export function byStreamType(definitions: readonly AnyStreamDefinition[] | undefined): DefinitionsByType {
  return new Map((definitions ?? []).map((definition) => [definition.name, definition]));
}

/**
 * Events as a reader of the current schemas sees them: each event of a declared stream type with
 * its data upcast to its event type's current version (and that version), every other event as
 * it was stored. The log itself is never rewritten.
 */
export function upcastEvents<Data>(events: readonly StoredEvent<Data>[], definitions: DefinitionsByType): StoredEvent<Data>[] {
  if (definitions.size === 0) return [...events];
  return events.map((event) => {
    const definition = definitions.get(event.streamType);
    if (definition === undefined) return event;
    return {
      ...event,
      data: definition.upcast(event.type, event.schemaVersion, event.data as JsonObject) as Data,
      schemaVersion: definition.schemaVersion(event.type),
    };
  });
}
