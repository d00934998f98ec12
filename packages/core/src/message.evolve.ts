import type { MessageEvent } from "./message.events.ts";
import { newMessage, type Message } from "./message.types.ts";

/**
 * Folds one event into a message. Pure. A stream starts from {@link newMessage} (version 0),
 * so the projection is, by definition, `events.reduce(evolveMessage, newMessage(id, file, at))`.
 * Each event adds 1 to `version` and sets `updatedAt` to its `at`; it does not check that the
 * move is allowed (that is the machine's job, before the event exists).
 */
export function evolveMessage(message: Message, event: MessageEvent): Message {
  const base = { ...message, updatedAt: event.data.at, version: message.version + 1 };
  switch (event.type) {
    case "message.claimed":
      return {
        ...base,
        state: "processing",
        file: event.data.file,
        claimId: event.data.claimId,
        owner: event.data.owner,
        claims: message.claims + 1,
      };
    case "message.recorded":
      return { ...base, state: "done", file: event.data.file, key: event.data.key, outcome: "recorded" };
    case "message.duplicated":
      return { ...base, state: "done", file: event.data.file, key: event.data.key, outcome: "duplicate" };
    case "message.rejected":
      return { ...base, state: "error", file: event.data.file, reason: event.data.reason, detail: event.data.detail };
    case "message.replayed":
      return {
        ...base,
        state: "inbox",
        file: event.data.file,
        owner: null,
        reason: null,
        detail: null,
        replays: message.replays + 1,
      };
  }
}

/**
 * The fold of a whole stream, in version order, from {@link newMessage} with `id`, created at
 * the first event's time; `null` for an empty stream.
 */
export function foldMessage(id: string, events: readonly MessageEvent[]): Message | null {
  const first = events[0];
  if (first === undefined) return null;
  const file = first.type === "message.claimed" ? first.data.file : "";
  let message = newMessage(id, file, first.data.at);
  for (const event of events) message = evolveMessage(message, event);
  return message;
}
