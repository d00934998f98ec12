import { VERQ_STREAM_DEFINITIONS, type EventReader, type JsonObject } from "@verq/core";
import type { StoredEvent } from "../sql/events/storedEvent.ts";

/** The readers of each stream type, for {@link upcastEvents}. */
export type DefinitionsByType = ReadonlyMap<string, EventReader>;

/** verq's own stream types' readers: their definitions. */
const OWN: readonly EventReader[] = Object.values(VERQ_STREAM_DEFINITIONS);

/**
 * The readers of verq's own stream types and of `definitions` (a service's declared ones), by
 * stream type: a definition given for one of verq's own types reads it instead of verq's.
 */
export function byStreamType(definitions: readonly EventReader[] | undefined = []): DefinitionsByType {
  return new Map([...OWN, ...definitions].map((definition) => [definition.name, definition]));
}

/**
 * Events as a reader of the current schemas sees them: each event of a stream type that
 * `definitions` reads with its data upcast to its event type's current version (and that
 * version), every other event (and one already at its current version) as it was stored. The
 * log itself is never rewritten. An event stored at a version newer than its reader knows is
 * `VERQ_EVENT_FROM_NEWER_SCHEMA`.
 */
export function upcastEvents<Data>(events: readonly StoredEvent<Data>[], definitions: DefinitionsByType): StoredEvent<Data>[] {
  return events.map((event) => upcastEvent(event, definitions));
}

/** One event as {@link upcastEvents} gives it. */
export function upcastEvent<Data>(event: StoredEvent<Data>, definitions: DefinitionsByType): StoredEvent<Data> {
  const definition = definitions.get(event.streamType);
  if (definition === undefined) return event;
  const current = definition.schemaVersion(event.type);
  if (event.schemaVersion === current) return event;
  return {
    ...event,
    data: definition.upcast(event.type, event.schemaVersion, event.data as JsonObject) as Data,
    schemaVersion: current,
  };
}
