import type { QueueEvent } from "./queue.events.ts";
import { newQueue, type QueueSettings } from "./queue.types.ts";

/**
 * Folds one event into a queue's settings. Pure. Every field but `name` and `version` comes from
 * the event itself, so the last event alone gives the settings.
 */
export function evolveQueue(queue: QueueSettings, event: QueueEvent): QueueSettings {
  const { maxLeased, at } = event.data;
  return {
    name: queue.name,
    state: maxLeased === null ? "unlimited" : "limited",
    maxLeased,
    updatedAt: at,
    version: queue.version + 1,
  };
}

/** The fold of a whole stream, in version order, from {@link newQueue} with `name`. */
export function foldQueue(name: string, events: readonly QueueEvent[]): QueueSettings {
  return events.reduce(evolveQueue, newQueue(name));
}
